/**
 * Issue 14's property test: fast-check builds hostile checkpoint trees —
 * names (`..`, control characters, slashes, near-miss slot names), modes
 * (symlinks, gitlinks, executables), JSON of the wrong types, invalid and
 * hostile session ids, deep nesting, control characters everywhere — and
 * delivers them as a teammate would: a fetched metadata branch with a
 * linked commit, and a remote branch the pre-push merge meets. Then every
 * reader and repairer runs against them: `explain`, `resume`, `rewind`,
 * `status`, `doctor --force`, `clean --force`, and a push.
 *
 * For every generated case: no stack trace, no raw control byte on the
 * terminal, nothing outside the repository and the agent's transcript root
 * changed, and nothing the layout refuses in our metadata branch.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cleanupAll, makeRepo, type TempRepo } from '../helpers/repo.js';
import { snapshot, diffSnapshots } from '../stress/helpers.js';
import { AGENT_HOMES, AGENT_REGISTRIES, AGENT_ROOTS, commitTree, expectNoRawControl, writeBlob, writeRawTree, writeTree } from './helpers.js';

afterAll(cleanupAll);

const CONTROL = ['\u0000', '\u0007', '\u001b[2J', '\u001b]0;x\u0007', '\r', '\u0085', '\u009b31m', '\u202e', '\u2066', '\u200f', '\ufeff', '\u2028', '\u007f'];
const hostileText = fc
  .array(fc.oneof(fc.constantFrom(...CONTROL), fc.string({ maxLength: 12 }), fc.constantFrom('../', '/etc/passwd', '.bashrc', '~/.ssh/authorized_keys', '; curl x|sh', '$(id)')), { maxLength: 6 })
  .map((parts) => parts.join(''));

const goodSid = fc.uuid();
const sessionId = fc.oneof(
  { weight: 3, arbitrary: goodSid },
  { weight: 2, arbitrary: hostileText },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.constant(null), fc.constant(true), fc.array(fc.string(), { maxLength: 2 }), fc.constant({})) },
  { weight: 1, arbitrary: fc.constantFrom('..', '.', '-rf', 'x'.repeat(129), 'a.pending-0123456789ab', 'sess one') },
);

/** A JSON value nested `depth` deep. */
function nested(depth: number): unknown {
  let v: unknown = 'bottom';
  for (let i = 0; i < depth; i++) v = i % 2 ? { k: v } : [v];
  return v;
}

const anyJson = fc.oneof(hostileText, fc.integer(), fc.constant(null), fc.boolean(), fc.array(hostileText, { maxLength: 3 }), fc.integer({ min: 0, max: 3000 }).map(nested));

const slotMetadata = fc.record(
  {
    session_id: sessionId,
    checkpoint_id: fc.oneof(fc.constant('a1b2c3d4e5f6'), hostileText),
    strategy: fc.oneof(fc.constant('manual-commit'), anyJson),
    created_at: fc.oneof(fc.constant('2026-11-20T10:00:00.000Z'), anyJson),
    checkpoints_count: fc.oneof(fc.nat(5), anyJson),
    files_touched: fc.oneof(fc.array(hostileText, { maxLength: 3 }), anyJson),
    agent: fc.oneof(fc.constantFrom('Claude Code', 'Gemini CLI', 'Cursor'), hostileText, anyJson),
    transcript_path: fc.oneof(hostileText, fc.constantFrom('.bashrc', '/etc/passwd', '../../x', '.ssh/authorized_keys')),
    tool_use_id: fc.oneof(hostileText, fc.constant('toolu_01')),
    summary: anyJson,
    token_usage: fc.oneof(fc.record({ input_tokens: anyJson, output_tokens: anyJson }), anyJson),
  },
  { requiredKeys: ['session_id'] },
);

const metadataBlob = fc.oneof(
  { weight: 5, arbitrary: slotMetadata.map((m) => JSON.stringify(m)) },
  { weight: 1, arbitrary: fc.oneof(hostileText, fc.constant('{'), fc.constant('[]'), fc.constant('null'), fc.constant('"x"')) },
);

const transcript = fc
  .array(
    fc.oneof(
      hostileText.map((t) => JSON.stringify({ type: 'user', uuid: 'u', message: { role: 'user', content: t } })),
      hostileText.map((t) => JSON.stringify({ type: 'assistant', uuid: 'a', message: { role: 'assistant', content: [{ type: 'text', text: t }] } })),
      hostileText,
    ),
    { maxLength: 5 },
  )
  .map((lines) => lines.join('\n') + '\n');

const entryName = fc.oneof(
  fc.constantFrom('metadata.json', 'full.jsonl', 'full.jsonl.001', 'prompt.txt', 'context.md', 'content_hash.txt', 'summary.txt', 'tasks', '..', '.', '0', '1', '00', '10000', 'x/y', 'notes.md'),
  hostileText.filter((s) => s.length > 0 && !s.includes('\u0000')),
);
const mode = fc.constantFrom('100644', '100644', '100644', '40000', '100755', '120000', '160000');

/** An extra entry of any name and mode (a tree gets a small random subtree). */
const extraEntry = fc.record({ name: entryName, mode, content: hostileText });

const slotSpec = fc.record({
  metadata: metadataBlob,
  transcript,
  prompt: hostileText,
  context: hostileText,
  extras: fc.array(extraEntry, { maxLength: 3 }),
});

const checkpointCase = fc.record({
  slots: fc.array(fc.record({ name: fc.oneof(fc.constantFrom('0', '1', '2'), entryName), slot: slotSpec }), { minLength: 1, maxLength: 3 }),
  rootMetadata: fc.oneof(anyJson.map((v) => JSON.stringify({ checkpoint_id: 'a1b2c3d4e5f6', sessions: v, branch: v })), hostileText),
  rootExtras: fc.array(extraEntry, { maxLength: 2 }),
  subject: hostileText,
});

type Case = typeof checkpointCase extends fc.Arbitrary<infer T> ? T : never;
const ID = 'a1b2c3d4e5f6';

function entryOf(r: TempRepo, e: { name: string; mode: string; content: string }): { mode: string; name: string; oid: string } {
  if (e.mode === '40000') return { mode: e.mode, name: e.name, oid: writeTree(r, { 'x.txt': e.content, '..': { mode: '40000', oid: writeRawTree(r, []) } }) };
  if (e.mode === '160000') return { mode: e.mode, name: e.name, oid: 'b'.repeat(40) };
  return { mode: e.mode, name: e.name, oid: writeBlob(r, e.content) };
}

/** The metadata-branch root tree of a case, built raw (names unchecked). */
function caseTree(r: TempRepo, c: Case): string {
  const slots = c.slots.map(({ name, slot }) => {
    const entries = [
      { mode: '100644', name: 'metadata.json', oid: writeBlob(r, slot.metadata) },
      { mode: '100644', name: 'full.jsonl', oid: writeBlob(r, slot.transcript) },
      { mode: '100644', name: 'prompt.txt', oid: writeBlob(r, slot.prompt) },
      { mode: '100644', name: 'context.md', oid: writeBlob(r, slot.context) },
      ...slot.extras.map((e) => entryOf(r, e)),
    ];
    const seen = new Set<string>();
    return { mode: '40000', name, oid: writeRawTree(r, entries.filter((e) => (seen.has(e.name) ? false : (seen.add(e.name), true)))) };
  });
  const cpEntries = [{ mode: '100644', name: 'metadata.json', oid: writeBlob(r, c.rootMetadata) }, ...slots, ...c.rootExtras.map((e) => entryOf(r, e))];
  const seen = new Set<string>();
  const cp = writeRawTree(r, cpEntries.filter((e) => (seen.has(e.name) ? false : (seen.add(e.name), true))));
  const shard = writeRawTree(r, [{ mode: '40000', name: ID.slice(2), oid: cp }]);
  return writeRawTree(r, [{ mode: '40000', name: ID.slice(0, 2), oid: shard }, ...c.rootExtras.map((e) => entryOf(r, e))].filter((e, i, a) => a.findIndex((x) => x.name === e.name) === i));
}

/** Everything in the temp base except the repository itself and the roots entire may write. */
function outsideSnapshot(r: TempRepo): Map<string, string> {
  const base = dirname(r.dir);
  const roots = ['repo', 'remote', 'home/.cache', ...[...AGENT_ROOTS, ...AGENT_REGISTRIES].map((r) => `home/${r}`)];
  const m = snapshot(base, (rel) => roots.some((r) => rel === r || rel.startsWith(r + '/')));
  for (const home of AGENT_HOMES) m.delete(`home/${home}/`); // an agent home holding a root may be created
  return m;
}

const COMMANDS: string[][] = [
  ['status'],
  ['explain'],
  ['explain', '--commit', 'HEAD'],
  ['explain', '--checkpoint', ID, '--full'],
  ['explain', '--checkpoint', ID, '--raw-transcript'],
  ['resume', 'feature'],
  ['rewind'],
  ['rewind', '--to', ID, '--force'],
  ['doctor', '--force'],
  ['clean', '--force'],
];

function runCase(c: Case): void {
  const r = makeRepo();
  const remote = join(dirname(r.dir), 'remote');
  r.git(['init', '-q', '--bare', remote]);
  r.git(['remote', 'add', 'origin', remote]);
  writeFileSync(join(r.home, '.bashrc'), 'echo original\n');
  mkdirSync(join(r.home, '.ssh'), { recursive: true });
  writeFileSync(join(r.home, '.ssh', 'authorized_keys'), 'mine\n');
  // the teammate's data, as fetched: a linked commit on `feature` and the tracking metadata branch
  const hostile = commitTree(r, caseTree(r, c), [], 'Checkpoint: hostile\n');
  r.git(['update-ref', 'refs/remotes/origin/entire/checkpoints/v1', hostile]);
  r.git(['checkout', '-q', '-b', 'feature']);
  r.write('f.txt', 'f\n');
  r.git(['add', 'f.txt']);
  r.git(['commit', '-q', '--no-verify', '-F', '-'], { input: `${c.subject.replace(/\0/g, '') || 'x'}\n\nEntire-Checkpoint: ${ID}\n` });
  r.git(['checkout', '-q', 'main']);
  expect(r.entire(['enable']).status).toBe(0);
  const before = outsideSnapshot(r);
  for (const args of COMMANDS) {
    const res = r.entire(args, { env: { ENTIRE_TEST_TTY: '0' } });
    const what = `entire ${args.join(' ')}`;
    expect(res.stderr, `${what}: stack trace`).not.toMatch(/^\s+at /m);
    expect(res.stderr + res.stdout, `${what}: internal error`).not.toMatch(/TypeError|RangeError|ReferenceError|Maximum call stack/);
    expectNoRawControl(res.stdout + res.stderr, what);
  }
  // the pre-push merge meets the same tree as the remote's metadata branch
  r.git(['push', '-q', '--no-verify', remote, `${hostile}:refs/heads/entire/checkpoints/v1`]);
  const own = commitTree(r, writeTree(r, { b0: { b1b2b3b4b5: { 'metadata.json': '{}\n', '0': { 'metadata.json': JSON.stringify({ session_id: '0d9e8f7a-6b5c-4d3e-8f1a-2b3c4d5e6f70', checkpoint_id: 'b0b1b2b3b4b5' }), 'full.jsonl': '{}\n' } } } }), [], 'Checkpoint: own\n');
  r.git(['update-ref', 'refs/heads/entire/checkpoints/v1', own]);
  r.git(['update-ref', '-d', 'refs/remotes/origin/entire/checkpoints/v1']);
  const push = r.gitResult(['push', 'origin', 'main']);
  expect(push.status, push.stderr).toBe(0);
  expect(push.stderr, 'push: stack trace').not.toMatch(/^\s+at /m);
  expectNoRawControl(push.stderr.replace(/\r/g, ''), 'git push (our pre-push lines)');
  // the merge happened (theirs is now an ancestor of ours), and what it kept is only the layout
  expect(r.gitResult(['merge-base', '--is-ancestor', hostile, 'refs/heads/entire/checkpoints/v1']).status, 'the pre-push merge did not run').toBe(0);
  const listing = r.git(['ls-tree', '-r', '-t', '--full-tree', 'refs/heads/entire/checkpoints/v1']);
  for (const l of listing.split('\n').filter(Boolean)) {
    const [meta, path] = l.split('\t');
    expect(['100644', '040000'], l).toContain(meta!.split(' ')[0]);
    expect(path!.split('/'), l).not.toContain('..');
  }
  expect(diffSnapshots(before, outsideSnapshot(r))).toEqual([]);
  r.cleanup();
}

describe('hostile checkpoint trees against every reader, repairer and the pre-push merge', () => {
  it('no stack trace, no raw control byte, nothing outside the repository and the agent root changed', () => {
    fc.assert(fc.property(checkpointCase, (c) => runCase(c)), { numRuns: Number(process.env['ENTIRE_PROPERTY_RUNS'] ?? 12), seed: Number(process.env['ENTIRE_PROPERTY_SEED'] ?? 1425) });
  }, 600_000);
});
