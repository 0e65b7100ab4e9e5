#!/usr/bin/env node
// The main job, end to end: a scripted Claude Code session (its hooks fed
// from the fixture transcript) in a temporary repository with the real
// installed git hooks. The agent commits mid-turn, the person commits after
// the turn, and `entire explain` shows what each commit is linked to.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, appendFileSync, rmSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'entire.cjs');
const base = realpathSync(mkdtempSync(join(tmpdir(), 'entire-demo-')));
const home = join(base, 'home');
const repo = join(base, 'acme-api');
mkdirSync(home, { recursive: true });
mkdirSync(repo, { recursive: true });

const env = { ...process.env };
for (const k of Object.keys(env)) if (k.startsWith('GIT_') || k.startsWith('ENTIRE_')) delete env[k];
Object.assign(env, {
  HOME: home,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Dana Developer',
  GIT_AUTHOR_EMAIL: 'dana@example.com',
  GIT_COMMITTER_NAME: 'Dana Developer',
  GIT_COMMITTER_EMAIL: 'dana@example.com',
  ENTIRE_STOP_WAIT_MS: '0',
  XDG_CACHE_HOME: join(home, '.cache'),
});

const bold = (s) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
const step = (s) => console.log(`\n${bold('▶ ' + s)}`);
function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: repo, env: { ...env, ...opts.env }, input: opts.input ?? '', encoding: 'utf8' });
  if (r.status !== 0 && !opts.allowFail) {
    console.error(r.stdout + r.stderr);
    throw new Error(`${cmd} ${args.join(' ')} failed`);
  }
  return r;
}
const git = (...args) => run('git', args).stdout;
const entire = (args, opts) => run(process.execPath, [cli, ...args], opts);
function show(text) {
  for (const line of text.trimEnd().split('\n')) console.log('  ' + line);
}

try {
  step('A repository with Entire enabled');
  git('init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'README.md'), '# acme-api\n\n## API\n\n- GET /healthz\n');
  mkdirSync(join(repo, 'src'), { recursive: true });
  writeFileSync(
    join(repo, 'src', 'server.ts'),
    'import express from "express";\n\nconst app = express();\napp.use(express.json());\n\napp.get("/healthz", (_req, res) => res.json({ status: "ok" }));\n\napp.listen(3000);\n',
  );
  git('add', '.');
  git('commit', '-q', '-m', 'Initial API');
  show(entire(['enable']).stdout);
  git('add', '.entire', '.claude');
  git('commit', '-q', '--no-verify', '-m', 'Enable Entire');

  // the fixture transcript, re-rooted into this repository
  const sid = '3f9a6c2e-51d7-4b0e-8c4a-e7b2f1d09a36';
  const fixture = readFileSync(join(root, 'test', 'fixtures', 'transcripts', 'claude-midturn-commit.jsonl'), 'utf8')
    .split('/home/dev/projects/acme-api')
    .join(repo)
    .split('\n')
    .filter((l) => l !== '');
  const tdir = join(home, '.claude', 'projects', repo.replace(/[^A-Za-z0-9]/g, '-'));
  mkdirSync(tdir, { recursive: true });
  const transcript = join(tdir, `${sid}.jsonl`);
  writeFileSync(transcript, '');
  const hook = (verb, extra = {}) =>
    entire(['hooks', 'claude-code', verb], { input: JSON.stringify({ session_id: sid, transcript_path: transcript, cwd: repo, ...extra }) });
  const lines = (from, to) => {
    for (const l of fixture.slice(from - 1, to)) {
      appendFileSync(transcript, l + '\n');
      applyTool(JSON.parse(l));
    }
  };
  function applyTool(entry) {
    const content = entry.type === 'assistant' ? entry.message?.content : null;
    if (!Array.isArray(content)) return;
    for (const b of content) {
      if (b.type !== 'tool_use') continue;
      const p = b.input?.file_path;
      if (b.name === 'Write') {
        mkdirSync(dirname(p), { recursive: true });
        writeFileSync(p, b.input.content);
      } else if (b.name === 'Edit') {
        const old = readFileSync(p, 'utf8');
        writeFileSync(p, old.includes(b.input.old_string) ? old.replace(b.input.old_string, b.input.new_string) : old + b.input.new_string);
      }
    }
  }

  step('Claude Code starts a session and gets a prompt');
  const start = JSON.parse(hook('session-start', { source: 'startup' }).stdout);
  show(start.systemMessage.trim());
  const prompt = JSON.parse(fixture[1]).message.content;
  hook('user-prompt-submit', { prompt });
  show(`> ${prompt}`);
  lines(1, 9);

  step('Mid-turn, the agent commits its middleware (git hooks run; no terminal, so no question)');
  git('add', 'src/middleware/rateLimit.ts', 'src/server.ts');
  const agentCommit = run('git', ['commit', '-q', '-m', 'Add token-bucket rate limiting middleware'], { env: { ENTIRE_TEST_TTY: '0' } });
  show(agentCommit.stderr);
  const sha1 = git('rev-parse', 'HEAD').trim();
  show(git('log', '-1', '--format=%h %s%n%n%(trailers:key=Entire-Checkpoint)'));
  lines(10, 17);

  step('The turn ends: the Stop hook finalizes the mid-turn checkpoint with the whole turn');
  lines(18, 18);
  hook('stop', { stop_hook_active: false });
  show(git('log', '--format=%h %s', 'entire/checkpoints/v1'));

  step('After the turn, the person commits the README the agent edited');
  git('add', 'README.md');
  const person = run('git', ['commit', '-q', '-m', 'Document rate limits'], { env: { ENTIRE_TEST_TTY: '1', ENTIRE_TEST_TTY_ANSWER: 'y' } });
  show(person.stderr);
  const sha2 = git('rev-parse', 'HEAD').trim();

  for (const [label, sha] of [
    ['the agent commit', sha1],
    ['the person commit', sha2],
  ]) {
    step(`entire explain --commit ${sha.slice(0, 7)}   (${label})`);
    const r = entire(['explain', '--commit', sha], { allowFail: true });
    show(r.stdout || r.stderr);
  }
  step('What was linked');
  show(git('log', '--format=%h %s%n        %(trailers:key=Entire-Checkpoint,valueonly,separator=)', '-3'));
  console.log(`\nDemo repository kept at ${repo} (delete it when done).`);
} catch (e) {
  console.error(String(e?.message ?? e));
  process.exitCode = 1;
}
void rmSync;
