/**
 * Issue 25, point 4: `opencode import` files a session under the document's own `info.id` (and
 * each part under the message it names), not under the slot it came from. A teammate's slot
 * `ses_teammate_1` whose stored export says `info.id = ses_victim_main` was imported over the
 * victim's own session with no `--force` and no question: consent and backup were checked for
 * the slot's id only. Now an export naming any other session (or a part naming another message)
 * is refused, with or without `--force`. The slots are crafted with git plumbing and fetched from
 * a real remote; a fake `opencode` on PATH keeps sessions by the id the document names, as the
 * real one does, and logs its argv.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, cleanupAll, makeRepo, tempDir, type TempRepo } from '../helpers/repo.js';
import { branchTree, checkpointSpec, commitTree, slotMetadata, type Spec } from './helpers.js';

afterAll(cleanupAll);

const ID = 'c1d2e3f4a5b6';
/** The real export's session id (test/fixtures/real-agents/opencode/export-sample.json). */
const SAMPLE = JSON.parse(readFileSync(join(FIXTURES, 'real-agents', 'opencode', 'export-sample.json'), 'utf8')) as {
  info: Record<string, unknown>;
  messages: { info: Record<string, unknown>; parts: Record<string, unknown>[] }[];
};
const SAMPLE_SID = SAMPLE.info['id'] as string;
const VICTIM = 'ses_victim_main';

/** The sample export with every session id in it set to `sid`. */
function exportOf(sid: string): typeof SAMPLE {
  return JSON.parse(JSON.stringify(SAMPLE).split(SAMPLE_SID).join(sid)) as typeof SAMPLE;
}

function slot(sid: string, doc: unknown): Spec {
  return { 'metadata.json': slotMetadata(ID, sid, { agent: 'OpenCode' }), 'full.jsonl': JSON.stringify(doc), 'prompt.txt': 'do it\n' };
}

/**
 * A fake `opencode`: `export <id>` prints `db/<id>.json`; `import <file>` stores the file under
 * its own `info.id` (what `opencode import` keys by); `session delete <id>` removes it.
 */
function fakeOpenCode(): { path: string; db: string; log: () => string[] } {
  const dir = tempDir('fake-opencode-');
  const db = join(dir, 'db');
  mkdirSync(db);
  const log = join(dir, 'argv.log');
  writeFileSync(
    join(dir, 'opencode'),
    `#!/usr/bin/env node
const fs = require('fs'), path = require('path');
const a = process.argv.slice(2).filter((w) => w !== '--pure');
fs.appendFileSync(${JSON.stringify(log)}, a.join(' ') + '\\n');
const db = ${JSON.stringify(db)};
if (a[0] === 'export') {
  const f = path.join(db, a[1] + '.json');
  if (!fs.existsSync(f)) { process.stderr.write('Session not found\\n'); process.exit(1); }
  process.stdout.write(fs.readFileSync(f));
} else if (a[0] === 'import') {
  const doc = JSON.parse(fs.readFileSync(a[1], 'utf8'));
  fs.writeFileSync(path.join(db, doc.info.id + '.json'), JSON.stringify(doc));
  process.stdout.write('Imported session: ' + doc.info.id + '\\n');
} else if (a[0] === 'session' && a[1] === 'delete') {
  fs.rmSync(path.join(db, a[2] + '.json'), { force: true });
}
`,
  );
  chmodSync(join(dir, 'opencode'), 0o755);
  return { path: `${dir}:${process.env['PATH']}`, db, log: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) };
}

function attackerRemote(slots: Spec[]): TempRepo {
  const remote = makeRepo({ bare: true });
  const a = makeRepo();
  const meta = commitTree(a, branchTree(a, { [ID]: checkpointSpec(ID, slots) }), [], 'Checkpoint: attacker\n');
  a.write('a.txt', 'x\n');
  a.git(['add', 'a.txt']);
  a.git(['commit', '-q', '--no-verify', '-m', `feature work\n\nEntire-Checkpoint: ${ID}`]);
  a.git(['push', '-q', '--no-verify', remote.dir, 'HEAD:refs/heads/feature', `${meta}:refs/heads/entire/checkpoints/v1`]);
  return remote;
}

describe("OpenCode restore never imports over a session it was not asked about (issue 25, point 4)", () => {
  it("a slot's export naming another session, in info.id, a message or a part, is refused with and without --force; the slot's own export is imported", () => {
    // the victim's own session, with other messages than the teammate's document
    const victimOwn = exportOf(VICTIM);
    victimOwn.messages = victimOwn.messages.slice(0, 2);

    const namesVictim = exportOf(VICTIM); // info.id = the victim's session
    const messagesNameVictim = exportOf(VICTIM);
    messagesNameVictim.info['id'] = 'ses_teammate_2'; // only info.id is the slot's
    const partNamesOtherMessage = exportOf('ses_teammate_3');
    partNamesOtherMessage.messages[1]!.parts[0]!['messageID'] = 'msg_victim_0001';
    const own = exportOf('ses_teammate_4');

    const remote = attackerRemote([
      slot('ses_teammate_1', namesVictim),
      slot('ses_teammate_2', messagesNameVictim),
      slot('ses_teammate_3', partNamesOtherMessage),
      slot('ses_teammate_4', own),
    ]);
    const v = makeRepo();
    v.git(['remote', 'add', 'origin', remote.dir]);
    v.git(['fetch', '-q', 'origin']);
    expect(v.entire(['enable', '--agent', 'opencode']).status).toBe(0);
    const oc = fakeOpenCode();
    writeFileSync(join(oc.db, `${VICTIM}.json`), JSON.stringify(victimOwn));
    const victimBefore = readFileSync(join(oc.db, `${VICTIM}.json`), 'utf8');

    for (const force of [[], ['--force']]) {
      const res = v.entire(['resume', 'feature', ...force], { env: { PATH: oc.path } });
      expect(res.status, res.stderr).toBe(0);
      const out = res.stdout + res.stderr;
      expect(out).toContain(`Not restoring session ses_teammate_1: the stored OpenCode session is not session ses_teammate_1 (its info.id is "${VICTIM}")`);
      expect(out).toContain(`Not restoring session ses_teammate_2: the stored OpenCode session is not session ses_teammate_2 (a message names session "${VICTIM}")`);
      expect(out).toContain('Not restoring session ses_teammate_3: the stored OpenCode session is not session ses_teammate_3 (a part names message "msg_victim_0001" from another message)');
      // the victim's session is untouched: never exported, deleted or imported over
      expect(readFileSync(join(oc.db, `${VICTIM}.json`), 'utf8')).toBe(victimBefore);
      expect(oc.log().filter((l) => l.includes(VICTIM))).toEqual([]);
      expect(oc.log().filter((l) => /ses_teammate_[123]/.test(l))).toEqual([]);
    }
    // the slot whose export is its own is imported once (then found the same), under its own id
    expect(oc.log().filter((l) => l.startsWith('import '))).toHaveLength(1);
    expect(readdirSync(oc.db).sort()).toEqual(['ses_teammate_4.json', `${VICTIM}.json`]);
  });
});
