/**
 * SPEC-2 §D.1–§D.4 through real git: every rewrite form keeps every link
 * (`explain --commit <new sha>` lists what was linked before), no trailer
 * dangles, and session bases follow HEAD.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { world, commit, headMessage, trailerIds, shadowBranches, expectClean, stateOf } from '../e2e/helpers.js';
import { explainIds, noteIds, head, baseOf, expectNoDanglingTrailer } from './helpers.js';

afterAll(cleanupAll);

/** One agent turn writing `file`, then the person commits it through the hooks; returns the id. */
function linkedCommit(r: TempRepo, agent: FakeClaude, file: string, message = `add ${file}`): string {
  agent.prompt(`write ${file}`);
  agent.write(file, `content of ${file}\n`);
  agent.say(`wrote ${file}`);
  expect(agent.stop().status).toBe(0);
  r.git(['add', file]);
  const c = commit(r, ['-m', message], { tty: true });
  expect(c.status, c.stderr).toBe(0);
  const [id] = trailerIds(headMessage(r));
  expect(id).toBeTruthy();
  return id!;
}

/** A script usable as GIT_EDITOR / GIT_SEQUENCE_EDITOR. */
function script(r: TempRepo, name: string, body: string): string {
  const dir = join(r.home, 'bin');
  mkdirSync(dir, { recursive: true });
  const p = join(dir, name);
  writeFileSync(p, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return p;
}

describe('enable (D1)', () => {
  it('adds refs/notes/entire to notes.rewriteRef once, leaves notes.rewriteMode, installs five hooks; --uninstall removes exactly it', () => {
    const { r } = world();
    r.git(['config', 'notes.rewriteMode', 'overwrite']);
    r.git(['config', '--add', 'notes.rewriteRef', 'refs/notes/commits']);
    expect(r.entire(['enable']).status).toBe(0);
    expect(r.entire(['enable']).status).toBe(0);
    expect(r.git(['config', '--get-all', 'notes.rewriteRef']).trim().split('\n').sort()).toEqual(['refs/notes/commits', 'refs/notes/entire']);
    expect(r.git(['config', 'notes.rewriteMode']).trim()).toBe('overwrite');
    for (const h of ['prepare-commit-msg', 'commit-msg', 'post-commit', 'pre-push', 'post-rewrite']) {
      expect(readFileSync(join(r.dir, '.git', 'hooks', h), 'utf8')).toContain('# Entire CLI hooks');
    }
    const un = r.entire(['disable', '--uninstall', '--force']);
    expect(un.status, un.stderr).toBe(0);
    expect(r.git(['config', '--get-all', 'notes.rewriteRef']).trim()).toBe('refs/notes/commits');
    expect(r.git(['config', 'notes.rewriteMode']).trim()).toBe('overwrite');
  });
});

describe('commit --amend (D2)', () => {
  it('-m, -F, the editor and --no-edit keep the link; the note follows; base_commit follows HEAD', () => {
    const { r, agent } = world();
    const id = linkedCommit(r, agent, 'a.go');
    expect(noteIds(r, 'HEAD')).toEqual([id]);
    const msgFile = join(r.home, 'msg.txt');
    writeFileSync(msgFile, 'from a file\n');
    const editor = script(r, 'reword.sh', `sed -i 's/^from a file$/edited/' "$1"`);
    const forms: [string, string[], Record<string, string>][] = [
      ['-m', ['--amend', '-m', 'amended y'], {}],
      ['-F', ['--amend', '-F', msgFile], {}],
      ['editor', ['--amend'], { GIT_EDITOR: editor }],
      ['--no-edit', ['--amend', '--no-edit'], {}],
    ];
    let n = 0;
    for (const [form, args, env] of forms) {
      const before = head(r);
      // a distinct committer date: an amend within the same second may otherwise recreate the same commit
      const c = commit(r, args, { tty: true, env: { ...env, GIT_COMMITTER_DATE: `${2_000_000_000 + ++n} +0000` } });
      expect(c.status, `${form}: ${c.stderr}`).toBe(0);
      const now = head(r);
      expect(now, form).not.toBe(before);
      expect(explainIds(r, now), form).toContain(id);
      expect(noteIds(r, now), form).toContain(id);
      expect(baseOf(r, agent.sessionId), form).toBe(now);
    }
    expectNoDanglingTrailer(r);
    expectClean(r);
  });

  it('an amend with hooks off that drops the trailer stays linked through the note', () => {
    const { r, agent } = world();
    const id = linkedCommit(r, agent, 'a.go');
    r.git(['-c', 'core.hooksPath=/dev/null', 'commit', '-q', '--amend', '-m', 'no trailer now']);
    expect(trailerIds(headMessage(r))).toEqual([]);
    expect(explainIds(r, 'HEAD')).toEqual([id]);
  });

  it('post-rewrite amend while a rebase is in progress changes nothing (D4)', () => {
    const { r, agent } = world();
    linkedCommit(r, agent, 'a.go');
    const old = head(r);
    r.git(['commit', '-q', '--allow-empty', '--no-verify', '-m', 'other']);
    const other = head(r);
    const notesBefore = r.git(['rev-parse', 'refs/notes/entire']).trim();
    const stateBefore = JSON.stringify(stateOf(r, agent.sessionId));
    mkdirSync(join(r.dir, '.git', 'rebase-merge'));
    const res = r.entire(['hooks', 'git', 'post-rewrite', 'amend'], { input: `${old} ${other}\n` });
    expect(res.status).toBe(0);
    expect(r.git(['rev-parse', 'refs/notes/entire']).trim()).toBe(notesBefore);
    expect(JSON.stringify(stateOf(r, agent.sessionId))).toBe(stateBefore);
    expect(noteIds(r, other)).toEqual([]);
  });
});

describe('rebase (D3, D5)', () => {
  it('onto a moved base: every commit keeps its id; the shadow branch and base_commit follow', () => {
    const { r, agent } = world();
    r.git(['checkout', '-q', '-b', 'feature']);
    const ids = ['a.go', 'b.go', 'c.go'].map((f) => linkedCommit(r, agent, f));
    // uncommitted agent work on the shadow branch of HEAD
    agent.prompt('start d');
    agent.write('d.go', 'd\n');
    agent.stop();
    expect(shadowBranches(r)).toEqual([`entire/${head(r).slice(0, 7)}-e3b0c4`]);
    r.git(['checkout', '-q', 'main']);
    r.write('main.txt', 'moved\n');
    r.git(['add', 'main.txt']);
    r.git(['commit', '-q', '--no-verify', '-m', 'main moved']);
    r.git(['checkout', '-q', 'feature']);
    const rb = r.gitResult(['rebase', 'main']);
    expect(rb.status, rb.stderr).toBe(0);
    const news = r.git(['rev-list', '--reverse', 'main..HEAD']).trim().split('\n');
    expect(news).toHaveLength(3);
    news.forEach((sha, i) => expect(explainIds(r, sha)).toEqual([ids[i]]));
    expect(baseOf(r, agent.sessionId)).toBe(head(r));
    expect(shadowBranches(r)).toEqual([`entire/${head(r).slice(0, 7)}-e3b0c4`]);
    expectNoDanglingTrailer(r);
    expectClean(r);
  });

  it('rebase -i: fixup keeps both ids (note both, message one); squash, reword and drop keep theirs', () => {
    const { r, agent } = world();
    const base = head(r);
    const [a, b, c, d, e] = ['a.go', 'b.go', 'c.go', 'd.go', 'e.go'].map((f) => linkedCommit(r, agent, f));
    // a, fixup b into a; c, squash d into c; e reworded dropping its trailer
    const seq = script(
      r,
      'seq.sh',
      `sed -i -e '2s/^pick/fixup/' -e '4s/^pick/squash/' -e '5s/^pick/reword/' "$1"`,
    );
    const editor = script(r, 'edit.sh', `sed -i '/^Entire-Checkpoint:/d' "$1"`);
    const rb = r.gitResult(['rebase', '-i', base], { env: { GIT_SEQUENCE_EDITOR: seq, GIT_EDITOR: editor } });
    expect(rb.status, rb.stderr).toBe(0);
    const news = r.git(['rev-list', '--reverse', `${base}..HEAD`]).trim().split('\n');
    expect(news).toHaveLength(3);
    const [ab, cd, e2] = news as [string, string, string];
    expect(trailerIds(headMessage(r, ab))).toEqual([a]);
    expect(noteIds(r, ab)).toEqual([a, b].sort());
    expect(explainIds(r, ab)).toEqual([a, b].sort());
    expect(explainIds(r, cd)).toEqual([c, d].sort());
    expect(trailerIds(headMessage(r, e2))).toEqual([]);
    expect(explainIds(r, e2)).toEqual([e]);
    expect(baseOf(r, agent.sessionId)).toBe(head(r));
    expectNoDanglingTrailer(r);
  });

  it('rebase -i drop: the rest keep their ids', () => {
    const { r, agent } = world();
    const base = head(r);
    const [a, , c] = ['a.go', 'b.go', 'c.go'].map((f) => linkedCommit(r, agent, f));
    const seq = script(r, 'drop.sh', `sed -i '2s/^pick/drop/' "$1"`);
    const rb = r.gitResult(['rebase', '-i', base], { env: { GIT_SEQUENCE_EDITOR: seq } });
    expect(rb.status, rb.stderr).toBe(0);
    const news = r.git(['rev-list', '--reverse', `${base}..HEAD`]).trim().split('\n');
    expect(news.map((s) => explainIds(r, s))).toEqual([[a], [c]]);
    expect(baseOf(r, agent.sessionId)).toBe(head(r));
  });
});

describe('cherry-pick', () => {
  for (const x of [false, true]) {
    it(`${x ? 'cherry-pick -x' : 'cherry-pick'} keeps the id`, () => {
      const { r, agent } = world();
      r.git(['checkout', '-q', '-b', 'side']);
      const id = linkedCommit(r, agent, 'a.go');
      const picked = head(r);
      r.git(['checkout', '-q', 'main']);
      r.git(['commit', '-q', '--allow-empty', '--no-verify', '-m', 'main moved']);
      const cp = r.gitResult(['cherry-pick', ...(x ? ['-x'] : []), picked]);
      expect(cp.status, cp.stderr).toBe(0);
      expect(head(r)).not.toBe(picked);
      expect(explainIds(r, 'HEAD')).toEqual([id]);
      expectNoDanglingTrailer(r);
    });
  }
});

describe('commits made without our hooks (D6, D7)', () => {
  for (const hooksPath of ['', '/dev/null']) {
    it(`core.hooksPath=${hooksPath || '(empty)'} during a turn: linked at turn end, commit untouched`, () => {
      const { r, agent } = world();
      agent.prompt('write b and commit it');
      agent.write('b.go', 'package b\n');
      agent.bash(`git -c core.hooksPath=${hooksPath} commit -m 'agent commit'`);
      r.git(['add', 'b.go']);
      r.git(['-c', `core.hooksPath=${hooksPath}`, 'commit', '-q', '-m', 'agent commit']);
      const sha = head(r);
      const msg = headMessage(r);
      agent.say('committed');
      expect(agent.stop().status).toBe(0);
      expect(head(r)).toBe(sha);
      expect(headMessage(r)).toBe(msg);
      const ids = noteIds(r, sha);
      expect(ids).toHaveLength(1);
      expect(explainIds(r, sha)).toEqual(ids);
      const meta = JSON.parse(r.git(['show', `entire/checkpoints/v1:${ids[0]!.slice(0, 2)}/${ids[0]!.slice(2)}/0/metadata.json`]));
      expect(meta.files_touched).toEqual(['b.go']);
      const transcript = r.git(['show', `entire/checkpoints/v1:${ids[0]!.slice(0, 2)}/${ids[0]!.slice(2)}/0/full.jsonl`]);
      expect(transcript).toContain('committed'); // finalized with the whole turn
      expect(baseOf(r, agent.sessionId)).toBe(sha);
      expectClean(r);
    });
  }

  it('a hook-less commit of files the agent never touched gets nothing', () => {
    const { r, agent } = world();
    agent.prompt('write b');
    agent.write('b.go', 'package b\n');
    r.write('mine.txt', 'by the person\n');
    r.git(['add', 'mine.txt']);
    r.git(['-c', 'core.hooksPath=', 'commit', '-q', '-m', 'person commit']);
    const sha = head(r);
    agent.stop();
    expect(noteIds(r, sha)).toEqual([]);
    expect(explainIds(r, sha)).toEqual([]);
  });

  it('HUSKY=0-style commit after the turn: linked by the next git hook, or listed and linked by doctor --force', () => {
    const { r, agent } = world();
    agent.prompt('write b');
    agent.write('b.go', 'package b\n');
    agent.stop();
    r.git(['add', 'b.go']);
    r.git(['-c', 'core.hooksPath=/dev/null', 'commit', '-q', '-m', 'without hooks']);
    const sha = head(r);
    const doc = JSON.parse(r.entire(['doctor', '--json']).stdout) as { findings: { kind: string; commit?: string }[] };
    expect(doc.findings.filter((f) => f.kind === 'unlinked-commit').map((f) => f.commit)).toEqual([sha]);
    const fixed = r.entire(['doctor', '--force']);
    if (!/\[fixed\] unlinked-commit/.test(fixed.stdout)) console.log(readFileSync(join(r.dir, '.entire/logs/entire.log'), 'utf8'));
    expect(fixed.stdout).toMatch(/\[fixed\] unlinked-commit/);
    expect(noteIds(r, sha)).toHaveLength(1);
    expect(explainIds(r, sha)).toEqual(noteIds(r, sha));
    expect(headMessage(r)).toBe('without hooks\n');
  });

  it('the next hooked commit links an earlier hook-less one', () => {
    const { r, agent } = world();
    agent.prompt('write b and c');
    agent.write('b.go', 'package b\n');
    agent.write('c.go', 'package c\n');
    agent.stop();
    r.git(['add', 'b.go']);
    r.git(['-c', 'core.hooksPath=', 'commit', '-q', '-m', 'b without hooks']);
    const hookless = head(r);
    r.git(['add', 'c.go']);
    expect(commit(r, ['-m', 'c with hooks'], { tty: true }).status).toBe(0);
    expect(noteIds(r, hookless)).toHaveLength(1);
    expect(explainIds(r, 'HEAD')).toEqual(trailerIds(headMessage(r)));
    expect(new Set([...noteIds(r, hookless), ...trailerIds(headMessage(r))]).size).toBe(2);
  });
});

describe('merge --squash (D8)', () => {
  it('keeps the squashed commits ids even when their trailers are deleted from the message', () => {
    const { r, agent } = world();
    r.git(['checkout', '-q', '-b', 'f']);
    const a = linkedCommit(r, agent, 'a.go');
    const b = linkedCommit(r, agent, 'b.go');
    r.git(['checkout', '-q', 'main']);
    agent.prompt('write c');
    agent.write('c.go', 'package c\n');
    agent.stop();
    r.git(['merge', '-q', '--squash', 'f']);
    r.git(['add', 'c.go']);
    expect(commit(r, ['-m', 'squashed f'], { tty: true }).status).toBe(0);
    const own = trailerIds(headMessage(r));
    expect(own).toHaveLength(1);
    expect(explainIds(r, 'HEAD')).toEqual([a, b, own[0]!].sort());
  });
});
