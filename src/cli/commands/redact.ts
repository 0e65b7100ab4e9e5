import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { EntireError } from '../../errors.js';

interface RedactOptions {
  jsonl?: boolean;
  json?: boolean;
  stats?: boolean;
}

function readInput(file: string | undefined): string {
  try {
    // fd 0 reads all of standard input, whatever it is connected to
    return readFileSync(file ?? 0, 'utf8');
  } catch (e) {
    const what = file === undefined ? 'standard input' : file;
    throw new EntireError('INVALID_INPUT', `cannot read ${what}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { cause: e });
  }
}

/**
 * SPEC §8.10 `entire redact [--jsonl] [--stats] [FILE]`: writes FILE (or
 * standard input) to standard output exactly as it would be stored.
 * `--jsonl` applies the §3.2 JSONL walk, `--json` walks one JSON document
 * (a transcript stored as a document), otherwise the text is redacted as plain text.
 * `--stats` prints `<rule>\t<count>` lines to standard error.
 */
export function register(program: Command): void {
  program
    .command('redact')
    .description('Show what would be stored: redact secrets from FILE or standard input')
    .argument('[file]', 'file to redact (default: standard input)')
    .option('--jsonl', 'treat the input as a JSONL transcript (walk each line)')
    .option('--json', 'treat the input as one JSON document (a document-format transcript)')
    .option('--stats', 'print per-rule counts to standard error')
    .action(async (file: string | undefined, opts: RedactOptions) => {
      if (opts.jsonl && opts.json) throw new EntireError('INVALID_USAGE', '--jsonl and --json cannot be combined');
      const input = readInput(file);
      const mode = opts.jsonl ? 'jsonl' : opts.json ? 'json' : 'text';
      const redact = await import('../../redact/index.js');
      let output: string;
      if (opts.stats) {
        const r = redact.redactWithStats(input, mode);
        output = r.output;
        const rows = Object.entries(r.stats).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
        let total = 0;
        let lines = '';
        for (const [id, n] of rows) {
          lines += `${id}\t${n}\n`;
          total += n;
        }
        process.stderr.write(lines + `total\t${total}\n`);
      } else if (mode === 'jsonl') {
        output = redact.redactJsonl(input);
      } else if (mode === 'json') {
        output = redact.redactJsonDocument(input);
      } else {
        output = redact.redactString(input);
      }
      await new Promise<void>((resolve, reject) => {
        process.stdout.write(output, (err) => (err ? reject(err) : resolve()));
      });
    });
}
