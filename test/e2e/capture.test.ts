import { describe, it, expect, afterAll } from 'vitest';
import { writeFileSync, renameSync, rmSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll } from '../helpers/repo.js';
import { checkpointIdsInFinalBlock } from '../../src/checkpoint/trailers.js';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { FakeClaude } from '../helpers/agent.js';
import {
  world,
  commit,
  headMessage,
  trailerIds,
  checkpointIds,
  showCheckpointFile,
  stateOf,
  shadowBranches,
  expectClean,
} from './helpers.js';

afterAll(cleanupAll);

describe('single turn, then the person commits (SPEC §11.9, §11.12)', () => {
  it('links one checkpoint holding the full transcript, prompts and files; the shadow branch is gone', () => {
    const { r, agent } = world();
    expect(agent.sessionStart().stdout).toContain('Powered by Entire');
    agent.prompt('Add a.go please');
    agent.write('a.go', 'package a\n');
    agent.say('Added a.go.');
    const stop = agent.stop();
    expect(stop.status).toBe(0);
    const head7 = r.git(['rev-parse', '--short=7', 'HEAD']).trim();
    expect(shadowBranches(r)).toEqual([`${'entire/'}${head7}-e3b0c4`]);
    const step = r.git(['ls-tree', '-r', '--name-only', `entire/${head7}-e3b0c4`]);
    expect(step).toContain('a.go');
    expect(step).toContain(`.entire/metadata/${agent.sessionId}/full.jsonl`);
    const s1 = stateOf(r, agent.sessionId);
    expect(s1['phase']).toBe('idle');
    expect(s1['checkpoint_count']).toBe(1);
    expect(s1['files_touched']).toEqual(['a.go']);

    r.git(['add', 'a.go']);
    const c = commit(r, ['-m', 'm'], { tty: true });
    expect(c.status, c.stderr).toBe(0);
    const msg = headMessage(r);
    expect(msg).toMatch(/^m\n\nEntire-Checkpoint: [0-9a-f]{12}\n$/);
    const [id] = trailerIds(msg);
    expect(checkpointIds(r)).toEqual([id]);
    const transcript = showCheckpointFile(r, id!, '0/full.jsonl');
    expect(transcript).toContain('Added a.go.');
    expect(showCheckpointFile(r, id!, '0/prompt.txt')).toBe('Add a.go please');
    const meta = JSON.parse(showCheckpointFile(r, id!, '0/metadata.json'));
    expect(meta).toMatchObject({ checkpoint_id: id, session_id: agent.sessionId, files_touched: ['a.go'], agent: 'Claude Code', checkpoints_count: 1 });
    expect(showCheckpointFile(r, id!, '0/content_hash.txt')).toBe('sha256:' + createHash('sha256').update(transcript).digest('hex'));
    expect(shadowBranches(r)).toEqual([]);
    const s2 = stateOf(r, agent.sessionId);
    expect(s2['last_checkpoint_id']).toBe(id);
    expect(s2['checkpoint_count']).toBe(0);
    expect(s2['files_touched']).toBeUndefined();
    expect(s2['base_commit']).toBe(r.git(['rev-parse', 'HEAD']).trim());
    expectClean(r);
  });

  it('answering no at the terminal adds no trailer and keeps the work pending (§11.13)', () => {
    const { r, agent } = world();
    agent.prompt('add a');
    agent.write('a.go', 'package a\n');
    agent.stop();
    r.git(['add', 'a.go']);
    expect(commit(r, ['-m', 'm'], { tty: true, env: { ENTIRE_TEST_TTY_ANSWER: 'n' } }).status).toBe(0);
    expect(trailerIds(headMessage(r))).toEqual([]);
    expect(checkpointIds(r)).toEqual([]);
    expect(stateOf(r, agent.sessionId)['files_touched']).toEqual(['a.go']);
  });

  it('a tracked file changed by a shell command is caught from git status (§11.10)', () => {
    const { r, agent } = world();
    agent.prompt('bump the readme');
    writeFileSync(join(r.dir, 'README.md'), 'changed by sed\n');
    agent.bash("sed -i 's/x/y/' README.md");
    agent.stop();
    expect(stateOf(r, agent.sessionId)['files_touched']).toEqual(['README.md']);
  });
});

describe('mid-turn commits and finalization (SPEC §6.6, §11.23, §11.24)', () => {
  it('three agent commits in one turn get three provisional checkpoints, each finalized with the full turn', () => {
    const { r, agent } = world();
    agent.prompt('write three files and commit each');
    const ids: string[] = [];
    for (const f of ['one.txt', 'two.txt', 'three.txt']) {
      agent.write(f, `${f}\n`);
      r.git(['add', f]);
      const c = commit(r, ['-m', `add ${f}`]); // the agent's commit: no TTY
      expect(c.status, c.stderr).toBe(0);
      const [id] = trailerIds(headMessage(r));
      expect(id).toBeDefined();
      ids.push(id!);
      agent.say(`committed ${f}`);
    }
    expect(new Set(ids).size).toBe(3);
    expect(stateOf(r, agent.sessionId)['turn_checkpoint_ids']).toEqual(ids);
    // provisional: the first checkpoint does not yet know about later work
    expect(showCheckpointFile(r, ids[0]!, '0/full.jsonl')).not.toContain('committed three.txt');
    agent.say('All done.');
    expect(agent.stop().status).toBe(0);
    for (const id of ids) {
      const t = showCheckpointFile(r, id, '0/full.jsonl');
      expect(t).toContain('All done.');
      expect(t).toContain('committed three.txt');
    }
    const log = r.git(['log', '--format=%s', 'entire/checkpoints/v1']);
    for (const id of ids) expect(log).toContain(`Finalize transcript for Checkpoint: ${id}`);
    expect(stateOf(r, agent.sessionId)['turn_checkpoint_ids']).toBeUndefined();
    // token usage summed over the finalized checkpoints equals the transcript total
    const sum = ids.map((id) => JSON.parse(showCheckpointFile(r, id, '0/metadata.json')).token_usage?.output_tokens ?? 0).reduce((a, b) => a + b, 0);
    expect(sum).toBe(3 * 10 + 3 * 20 + 20);
    expectClean(r);
  });

  it('the transcript unreadable at Stop keeps the ids pending; the next Stop finalizes them (§11.25-style)', () => {
    const { r, agent } = world();
    agent.prompt('work');
    agent.write('a.txt', 'a\n');
    r.git(['add', 'a.txt']);
    expect(commit(r, ['-m', 'a']).status).toBe(0);
    const [id] = trailerIds(headMessage(r));
    agent.say('finished the work');
    const moved = agent.transcriptPath + '.away';
    renameSync(agent.transcriptPath, moved);
    expect(agent.hook('stop').status).toBe(0);
    const s = stateOf(r, agent.sessionId);
    expect(s['turn_checkpoint_ids']).toEqual([id]);
    expect(s['phase']).toBe('idle');
    expect(JSON.stringify(s['finalize_failures'])).toContain(id!);
    renameSync(moved, agent.transcriptPath);
    agent.prompt('next');
    expect(stateOf(r, agent.sessionId)['turn_checkpoint_ids']).toBeUndefined();
    expect(showCheckpointFile(r, id!, '0/full.jsonl')).toContain('finished the work');
  });

  it('the metadata ref locked during Stop keeps the id pending with its cause logged; the next prompt finalizes (§11.25)', () => {
    const { r, agent } = world();
    agent.prompt('work');
    agent.write('a.txt', 'a\n');
    r.git(['add', 'a.txt']);
    commit(r, ['-m', 'a']);
    const [id] = trailerIds(headMessage(r));
    agent.say('done');
    const lock = join(r.dir, '.git/refs/heads/entire/checkpoints/v1.lock');
    writeFileSync(lock, '');
    agent.stop();
    expect(stateOf(r, agent.sessionId)['turn_checkpoint_ids']).toEqual([id]);
    expect(readFileSync(join(r.dir, '.entire/logs/entire.log'), 'utf8')).toMatch(/finalize failed.*v1\.lock|v1\.lock.*finalize/);
    rmSync(lock);
    agent.prompt('again');
    expect(stateOf(r, agent.sessionId)['turn_checkpoint_ids']).toBeUndefined();
    expect(showCheckpointFile(r, id!, '0/full.jsonl')).toContain('"done"');
  });
});

describe('partial commits and carry-forward (SPEC §11.14, §11.29, §11.30)', () => {
  it('the person commits half of the agent files; the rest is carried forward and checkpointed later', () => {
    const { r, agent } = world();
    agent.prompt('write a and b');
    agent.write('a.go', 'a\n');
    agent.write('b.go', 'b\n');
    agent.stop();
    r.git(['add', 'a.go']);
    expect(commit(r, ['-m', 'a only'], { tty: true }).status).toBe(0);
    const [id1] = trailerIds(headMessage(r));
    expect(JSON.parse(showCheckpointFile(r, id1!, '0/metadata.json')).files_touched).toEqual(['a.go']);
    expect(stateOf(r, agent.sessionId)['files_touched']).toEqual(['b.go']);
    const head7 = r.git(['rev-parse', '--short=7', 'HEAD']).trim();
    expect(shadowBranches(r)).toEqual([`entire/${head7}-e3b0c4`]);
    expect(r.git(['show', `entire/${head7}-e3b0c4:b.go`])).toBe('b\n');
    // the carry-forward step went out in the checkpoint's pack (one pack written, not two)
    const packOf = (oid: string) =>
      readdirSync(join(r.dir, '.git', 'objects', 'pack'))
        .filter((n) => n.endsWith('.idx'))
        .find((n) => r.git(['show-index'], { input: readFileSync(join(r.dir, '.git', 'objects', 'pack', n)) }).includes(` ${oid}`));
    const checkpointPack = packOf(r.git(['rev-parse', 'entire/checkpoints/v1']).trim());
    expect(checkpointPack).toBeDefined();
    expect(packOf(r.git(['rev-parse', `entire/${head7}-e3b0c4`]).trim())).toBe(checkpointPack);
    r.git(['add', 'b.go']);
    expect(commit(r, ['-m', 'b'], { tty: true }).status).toBe(0);
    const [id2] = trailerIds(headMessage(r));
    expect(id2).toBeDefined();
    expect(id2).not.toBe(id1);
    expect(JSON.parse(showCheckpointFile(r, id2!, '0/metadata.json')).files_touched).toEqual(['b.go']);
    expectClean(r);
  });

  it('a commit of files the agent never touched gets no trailer; the agent work stays pending on the new HEAD', () => {
    const { r, agent } = world();
    agent.prompt('write a');
    agent.write('a.go', 'a\n');
    agent.stop();
    writeFileSync(join(r.dir, 'u.txt'), 'user\n');
    r.git(['add', 'u.txt']);
    expect(commit(r, ['-m', 'user work'], { tty: true }).status).toBe(0);
    expect(trailerIds(headMessage(r))).toEqual([]);
    expect(checkpointIds(r)).toEqual([]);
    const head7 = r.git(['rev-parse', '--short=7', 'HEAD']).trim();
    expect(shadowBranches(r)).toContain(`entire/${head7}-e3b0c4`);
    expect(stateOf(r, agent.sessionId)['files_touched']).toEqual(['a.go']);
  });
});

describe('the editor (SPEC §11.15-17)', () => {
  it('shows the trailer and comment lines; the message keeps the trailer without # lines', () => {
    const { r, agent } = world();
    agent.prompt('write a');
    agent.write('a.go', 'a\n');
    agent.stop();
    r.git(['add', 'a.go']);
    const buf = join(r.dir, '..', 'buffer.txt');
    const editor = `f() { cp "$1" '${buf}'; printf 'subject line\\n%s' "$(cat "$1")" > "$1"; }; f`;
    expect(commit(r, [], { env: { GIT_EDITOR: editor } }).status).toBe(0);
    const shown = readFileSync(buf, 'utf8');
    expect(shown).toMatch(/^\n\nEntire-Checkpoint: [0-9a-f]{12}\n# Remove the Entire-Checkpoint trailer above/);
    expect(shown).toContain('# Last Prompt: write a');
    const msg = headMessage(r);
    expect(msg).not.toContain('#');
    expect(trailerIds(msg)).toHaveLength(1);
    expect(checkpointIds(r)).toEqual(trailerIds(msg));
  });

  it('a trailer deleted in the editor gives no checkpoint, and the work links to a later commit', () => {
    const { r, agent } = world();
    agent.prompt('write a');
    agent.write('a.go', 'a\n');
    agent.write('b.go', 'b\n');
    agent.stop();
    r.git(['add', 'a.go']);
    const editor = `f() { sed -i '/^Entire-Checkpoint/d' "$1"; sed -i '1s/^/msg/' "$1"; }; f`;
    expect(commit(r, [], { env: { GIT_EDITOR: editor } }).status).toBe(0);
    expect(trailerIds(headMessage(r))).toEqual([]);
    expect(checkpointIds(r)).toEqual([]);
    r.git(['add', 'b.go']);
    expect(commit(r, ['-m', 'b'], { tty: true }).status).toBe(0);
    expect(checkpointIds(r)).toHaveLength(1);
  });

  it('a message of only the trailer aborts the commit (§11.17)', () => {
    const { r, agent } = world();
    agent.prompt('write a');
    agent.write('a.go', 'a\n');
    agent.stop();
    r.git(['add', 'a.go']);
    const before = r.git(['rev-parse', 'HEAD']).trim();
    const c = commit(r, [], { env: { GIT_EDITOR: 'true' } });
    expect(c.status).not.toBe(0);
    expect(r.git(['rev-parse', 'HEAD']).trim()).toBe(before);
    expect(checkpointIds(r)).toEqual([]);
  });
});

describe('amend, -C and squash (SPEC P2, §11.18-20)', () => {
  function linked() {
    const w = world();
    w.agent.prompt('write a');
    w.agent.write('a.go', 'a\n');
    w.agent.stop();
    w.r.git(['add', 'a.go']);
    expect(commit(w.r, ['-m', 'm'], { tty: true }).status).toBe(0);
    const [id] = trailerIds(headMessage(w.r));
    return { ...w, id: id! };
  }

  it('every form of --amend keeps the checkpoint id', () => {
    const { r, id } = linked();
    const forms: { args: string[]; tty?: boolean; env?: Record<string, string> }[] = [
      { args: ['--amend', '--no-edit'] },
      { args: ['--amend', '-m', 'x'], tty: true },
      { args: ['--amend', '-m', 'y'] },
      { args: ['--amend'], env: { GIT_EDITOR: 'true' } },
    ];
    for (const f of forms) {
      const c = commit(r, f.args, { tty: f.tty, env: f.env });
      expect(c.status, c.stderr).toBe(0);
      expect(trailerIds(headMessage(r))).toEqual([id]);
    }
    writeFileSync(join(r.dir, '..', 'msg.txt'), 'from file\n');
    expect(commit(r, ['--amend', '-F', join(r.dir, '..', 'msg.txt')]).status).toBe(0);
    expect(trailerIds(headMessage(r))).toEqual([id]);
    expect(headMessage(r).startsWith('from file\n')).toBe(true);
    expect(checkpointIds(r)).toEqual([id]);
  });

  it('commit -C <other> never reuses another commit id (§11.19)', () => {
    const { r, id } = linked();
    const sha = r.git(['rev-parse', 'HEAD']).trim();
    expect(commit(r, ['--allow-empty', '-C', sha]).status).toBe(0);
    expect(trailerIds(headMessage(r))).not.toContain(id);
  });

  it('a squash merge whose message embeds old trailers gets a fresh id, never an old one (§11.20)', () => {
    const { r, agent, id } = linked();
    r.git(['checkout', '-q', '-b', 'feat']);
    writeFileSync(join(r.dir, 'f.txt'), 'f\n');
    r.git(['add', 'f.txt']);
    r.git(['commit', '-q', '--no-verify', '-m', `feat\n\nEntire-Checkpoint: ${id}`]);
    r.git(['checkout', '-q', 'main']);
    r.git(['merge', '--squash', '-q', 'feat']);
    agent.prompt('write c');
    agent.write('c.go', 'c\n');
    agent.stop();
    r.git(['add', 'c.go']);
    expect(commit(r, ['--no-edit'], { tty: true }).status).toBe(0);
    const ids = trailerIds(headMessage(r));
    const final = checkpointIdsInFinalBlock(headMessage(r));
    expect(final).toHaveLength(1);
    expect(final[0]).not.toBe(id);
    expect(checkpointIds(r)).toContain(final[0]);
    expect(ids.length).toBeGreaterThanOrEqual(1);
  });
});

describe('no dangling trailer (P1, §11.26)', () => {
  it('a condense that fails the first time keeps the trailer and is written by the next hook', () => {
    const { r, agent } = world();
    agent.prompt('write a');
    agent.write('a.go', 'a\n');
    agent.stop();
    r.git(['add', 'a.go']);
    const lock = join(r.dir, '.git/refs/heads/entire/checkpoints/v1.lock');
    writeFileSync(lock, '');
    const c = commit(r, ['-m', 'm'], { tty: true });
    expect(c.status).toBe(0);
    expect(c.stderr).toContain('not written yet; will retry');
    const [id] = trailerIds(headMessage(r));
    expect(id).toBeDefined();
    expect((stateOf(r, agent.sessionId)['pending_condensations'] as unknown[]).length).toBe(1);
    rmSync(lock);
    agent.prompt('next turn');
    expect(checkpointIds(r)).toEqual([id]);
    expect(stateOf(r, agent.sessionId)['pending_condensations']).toBeUndefined();
    expect(showCheckpointFile(r, id!, '0/full.jsonl')).toContain('write a');
  });
});

describe('several sessions (SPEC §11.28, §4.3)', () => {
  it('two sessions in one worktree condense into one checkpoint with slots 0/ and 1/', () => {
    const { r, agent } = world();
    const other = new FakeClaude(r);
    agent.prompt('write a');
    agent.write('a', 'a\n');
    agent.stop();
    other.prompt('write b');
    other.write('b', 'b\n');
    other.stop();
    r.git(['add', 'a', 'b']);
    expect(commit(r, ['-m', 'both'], { tty: true }).status).toBe(0);
    const [id] = trailerIds(headMessage(r));
    const root = JSON.parse(showCheckpointFile(r, id!, 'metadata.json'));
    expect(root.sessions).toHaveLength(2);
    expect(root.files_touched).toEqual(['a', 'b']);
    const sids = [0, 1].map((i) => JSON.parse(showCheckpointFile(r, id!, `${i}/metadata.json`)).session_id);
    expect(new Set(sids)).toEqual(new Set([agent.sessionId, other.sessionId]));
  });

  it('sessions in two worktrees never mix', () => {
    const { r, agent } = world();
    const wt = join(r.dir, '..', 'wt2');
    r.git(['worktree', 'add', '-q', wt, '-b', 'side']);
    const other = new FakeClaude(r, undefined, { cwd: wt });
    agent.prompt('write a');
    agent.write('a', 'a\n');
    agent.stop();
    other.prompt('write b');
    other.write('b', 'b\n');
    other.stop();
    r.git(['add', 'a']);
    expect(commit(r, ['-m', 'a'], { tty: true }).status).toBe(0);
    const [id] = trailerIds(headMessage(r));
    const root = JSON.parse(showCheckpointFile(r, id!, 'metadata.json'));
    expect(root.sessions).toHaveLength(1);
    expect(JSON.parse(showCheckpointFile(r, id!, '0/metadata.json')).session_id).toBe(agent.sessionId);
    expect(stateOf(r, other.sessionId)['files_touched']).toEqual(['b']);
    r.git(['add', 'b'], { cwd: wt });
    expect(commit(r, ['-m', 'b'], { tty: true, cwd: wt }).status).toBe(0);
    const [id2] = trailerIds(headMessage(r, 'HEAD', wt));
    expect(JSON.parse(showCheckpointFile(r, id2!, '0/metadata.json')).session_id).toBe(other.sessionId);
  });

  it('rebase, cherry-pick and revert add no trailers and condense nothing (§11.22)', () => {
    const { r, agent } = world();
    agent.prompt('write a');
    agent.write('a.go', 'a\n');
    agent.stop();
    r.git(['checkout', '-q', '-b', 'topic']);
    writeFileSync(join(r.dir, 't.txt'), 't\n');
    r.git(['add', 't.txt']);
    r.git(['commit', '-q', '--no-verify', '-m', 'topic work']);
    r.git(['checkout', '-q', 'main']);
    writeFileSync(join(r.dir, 'm.txt'), 'm\n');
    r.git(['add', 'm.txt']);
    r.git(['commit', '-q', '--no-verify', '-m', 'main work']);
    const before = checkpointIds(r);
    r.git(['checkout', '-q', 'topic']);
    const rb = r.gitResult(['rebase', '-q', 'main'], { env: { ENTIRE_TEST_TTY: '0' } });
    expect(rb.status, rb.stderr).toBe(0);
    expect(trailerIds(headMessage(r))).toEqual([]);
    r.git(['checkout', '-q', '-b', 'other', 'main']);
    writeFileSync(join(r.dir, 'o.txt'), 'o\n');
    r.git(['add', 'o.txt']);
    r.git(['commit', '-q', '--no-verify', '-m', 'other work']);
    r.git(['checkout', '-q', 'topic']);
    const cp = r.gitResult(['cherry-pick', 'other'], { env: { ENTIRE_TEST_TTY: '0' } });
    expect(cp.status, cp.stderr).toBe(0);
    expect(trailerIds(headMessage(r))).toEqual([]);
    // a clean revert leaves no state file while its hooks run: argv tells
    const rv = r.gitResult(['revert', '--no-edit', 'HEAD'], { env: { ENTIRE_TEST_TTY: '0' } });
    expect(rv.status, rv.stderr).toBe(0);
    expect(headMessage(r)).toMatch(/^Revert /);
    expect(trailerIds(headMessage(r))).toEqual([]);
    expect(checkpointIds(r)).toEqual(before);
    expect(stateOf(r, agent.sessionId)['files_touched']).toEqual(['a.go']);
  });
});

describe('idempotent hooks', () => {
  it('a stop run twice and a post-commit run twice change nothing the second time', () => {
    const { r, agent } = world();
    agent.prompt('write a');
    agent.write('a.go', 'a\n');
    agent.stop();
    const refs1 = r.git(['for-each-ref']);
    const state1 = stateOf(r, agent.sessionId);
    agent.hook('stop');
    expect(r.git(['for-each-ref'])).toBe(refs1);
    const state2 = stateOf(r, agent.sessionId);
    expect({ ...state2, last_interaction_time: 0 }).toEqual({ ...state1, last_interaction_time: 0 });
    r.git(['add', 'a.go']);
    commit(r, ['-m', 'm'], { tty: true });
    const refs2 = r.git(['for-each-ref']);
    const again = r.entire(['hooks', 'git', 'post-commit']);
    expect(again.status).toBe(0);
    expect(r.git(['for-each-ref'])).toBe(refs2);
    expect(checkpointIds(r)).toHaveLength(1);
  });
});
