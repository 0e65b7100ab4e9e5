/**
 * commander wiring for the user-facing commands. Each command lives in its
 * own file under ./commands and is imported only when it runs.
 */
import { Command, CommanderError } from 'commander';
import { EntireError } from '../errors.js';
import { err } from './output.js';
import { termSafe } from '../trust/terminal.js';
import { versionLines } from './commands/version.js';

export type CommandModule = { register(program: Command): void };

/** Command name → lazy module. Order is the order of `entire --help`. */
const COMMANDS: Record<string, () => Promise<CommandModule>> = {
  enable: () => import('./commands/enable.js'),
  disable: () => import('./commands/disable.js'),
  status: () => import('./commands/status.js'),
  doctor: () => import('./commands/doctor.js'),
  reset: () => import('./commands/reset.js'),
  clean: () => import('./commands/clean.js'),
  explain: () => import('./commands/explain.js'),
  rewind: () => import('./commands/rewind.js'),
  resume: () => import('./commands/resume.js'),
  tasks: () => import('./commands/tasks.js'),
  context: () => import('./commands/context.js'),
  migrate: () => import('./commands/migrate.js'),
  redact: () => import('./commands/redact.js'),
  version: () => import('./commands/version.js'),
  debug: () => import('./commands/debug.js'),
};

export async function runProgram(argv: string[]): Promise<void> {
  const program = new Command('entire')
    .description('Link AI coding-agent sessions to git commits')
    .exitOverride()
    .configureOutput({
      writeErr: (s) => process.stderr.write(termSafe(s)),
      outputError: (s, write) => write(s.startsWith('error: ') ? `Error: Invalid usage: ${s.slice(7)}` : s),
    })
    .showHelpAfterError(false)
    // main.ts answers a lone `--version` without commander; this is for help and other spellings
    .version(versionLines().join('\n'), '-v, --version', 'print the version (as `entire version`)');

  const name = argv[0];
  // Load only the command that runs; help needs them all.
  const wanted = name !== undefined && name in COMMANDS ? [name] : Object.keys(COMMANDS);
  for (const n of wanted) {
    const loader = COMMANDS[n];
    if (!loader) continue;
    try {
      (await loader()).register(program);
    } catch (e) {
      if (name === n) throw e;
      // a command still being built must not break `--help` for the others
    }
  }
  if (name !== undefined && !(name in COMMANDS) && !name.startsWith('-')) {
    err(`Error: Invalid usage: unknown command '${name}'`);
    err('Run `entire --help` for usage.');
    process.exitCode = 1;
    return;
  }

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    process.exitCode = reportCommandError(e);
  }
}

/** One clear line on stderr; the exit code a command failure gets. */
export function reportCommandError(e: unknown): number {
  if (e instanceof CommanderError) {
    if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
    return e.exitCode === 0 ? 0 : 1;
  }
  if (e instanceof EntireError) {
    if (e.code === 'NOT_A_REPO') err('Not a git repository.');
    else if (e.code === 'INVALID_USAGE') err(`Error: Invalid usage: ${e.message}`);
    else err(`Error: ${e.message}`);
    return 1;
  }
  err(`Error: ${e instanceof Error ? e.message : String(e)}`);
  return 1;
}
