/**
 * Issue 25, point 6, through the built CLI and real git: a commit made without
 * our hooks is linked to a session only with positive evidence (HEAD's reflog
 * shows a local `commit` by the commit's committer within the session; the
 * commit holds the agent's version of a file). A teammate's commit that came
 * by `pull` (or `fetch` + `reset`) never gets the session's prompts, and the
 * next push publishes nothing. Point 8's fake-agent form: a hook-less commit
 * before a hooked one in the same turn is linked by the hooked commit's
 * post-commit (candidates from the live transcript).
 */
import { describe, it, expect, afterAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, repoAt, type TempRepo } from '../helpers/repo.js';
import { world, commit, headMessage, trailerIds, checkpointIds, showCheckpointFile } from '../e2e/helpers.js';
import { explainIds, noteIds, head, baseOf } from './helpers.js';

afterAll(cleanupAll);

const A_START = 'first line\nsecond line\nthird line\n';
const A_AGENT = 'first line\nsecond line\nthird line, edited by the agent\n';
const A_TEAM = 'first line, edited by the teammate\nsecond line\nthird line\n';
const A_BOTH = 'first line, edited by the teammate\nsecond line\nthird line, edited by the agent\n';
const PROMPT = 'edit a.txt: PRIVATE-PROMPT-TEXT';

/** r with a.txt pushed to a bare remote, and a teammate's clone (no Entire) that changes a.txt and pushes. */
function withTeammate(r: TempRepo, sameIdentity: boolean): { remote: string; mate: TempRepo } {
  r.write('a.txt', A_START);
  r.git(['add', 'a.txt']);
  r.git(['commit', '-q', '--no-verify', '-m', 'add a.txt']);
  const remote = join(r.home, '..', 'remote.git');
  r.git(['init', '-q', '--bare', '-b', 'main', remote]);
  r.git(['remote', 'add', 'origin', remote]);
  r.git(['push', '-q', '--no-verify', 'origin', 'main']);
  const mateDir = join(r.home, '..', 'teammate');
  const mateEnv = sameIdentity ? r.env : { ...r.env, GIT_AUTHOR_NAME: 'Team Mate', GIT_AUTHOR_EMAIL: 'mate@example.com', GIT_COMMITTER_NAME: 'Team Mate', GIT_COMMITTER_EMAIL: 'mate@example.com' };
  r.git(['clone', '-q', remote, mateDir], { env: mateEnv as Record<string, string> });
  const mate = repoAt(mateDir, r.home, mateEnv);
  return { remote, mate };
}

function teammatePushes(mate: TempRepo): string {
  mate.write('a.txt', A_TEAM);
  mate.git(['commit', '-q', '-am', 'teammate edits a.txt']);
  mate.git(['push', '-q', 'origin', 'main']);
  return head(mate);
}

describe("a teammate's commit of a file the session touched (issue 25, point 6)", () => {
  const syncs: [string, (r: TempRepo) => void][] = [
    ['stash, pull, stash pop', (r) => r.git(['pull', '-q', '--no-rebase', '--ff-only', 'origin', 'main'])],
    ['stash, fetch + reset --hard, stash pop', (r) => (r.git(['fetch', '-q', 'origin']), r.git(['reset', '-q', '--hard', 'origin/main']))],
  ];
  for (const [name, sync] of syncs) {
    for (const sameIdentity of [false, true]) {
      it(`${name}${sameIdentity ? ' (teammate with the same identity)' : ''}: no checkpoint for their commit, nothing published on push`, () => {
        const { r, agent } = world();
        const { remote, mate } = withTeammate(r, sameIdentity);
        agent.prompt(PROMPT);
        agent.write('a.txt', A_AGENT);
        agent.say('edited a.txt');
        expect(agent.stop().status).toBe(0);
        const theirs = teammatePushes(mate);

        r.git(['stash', '-q']);
        sync(r);
        r.git(['stash', 'pop', '-q']);
        expect(head(r)).toBe(theirs);
        expect(r.git(['show', ':a.txt'])).toBe(A_TEAM);
        expect(r.git(['diff', '--name-only']).trim()).toBe('a.txt');

        // the next prompt's hook: the session's base moves on, their commit gets nothing
        const next = agent.prompt('and now something else');
        expect(next.status, next.stderr).toBe(0);
        expect(next.stderr).not.toMatch(/made without git hooks/);
        expect(noteIds(r, theirs)).toEqual([]);
        expect(explainIds(r, theirs)).toEqual([]);
        expect(checkpointIds(r)).toEqual([]);
        expect(baseOf(r, agent.sessionId)).toBe(theirs);
        const doc = JSON.parse(r.entire(['doctor', '--json']).stdout) as { findings: { kind: string }[] };
        expect(doc.findings.filter((f) => f.kind === 'unlinked-commit')).toEqual([]);
        agent.say('nothing to do');
        expect(agent.stop().status).toBe(0);
        expect(noteIds(r, theirs)).toEqual([]);

        // the next push of any branch publishes nothing of the session
        r.git(['checkout', '-q', '-b', 'other']);
        const push = r.gitResult(['push', 'origin', 'other']);
        expect(push.status, push.stderr).toBe(0);
        const refs = r.git(['ls-remote', remote]).trim().split('\n').map((l) => l.split('\t')[1]!);
        expect(refs).not.toContain('refs/notes/entire');
        // the metadata branch (created by enable) may go out, empty
        if (refs.includes('refs/heads/entire/checkpoints/v1')) {
          expect(r.git(['--git-dir', remote, 'ls-tree', '-d', '--name-only', 'entire/checkpoints/v1']).trim()).toBe('');
        }
        for (const ref of refs) expect(r.gitResult(['--git-dir', remote, 'grep', '-q', '-e', 'PRIVATE-PROMPT-TEXT', ref]).status, ref).toBe(1);
      });
    }
  }

  it('after the pull, the agent\'s own hook-less commit of the merged file is still linked (with the session\'s prompt)', () => {
    const { r, agent } = world();
    const { mate } = withTeammate(r, false);
    agent.prompt(PROMPT);
    agent.write('a.txt', A_AGENT);
    agent.say('edited a.txt');
    expect(agent.stop().status).toBe(0);
    const theirs = teammatePushes(mate);
    r.git(['stash', '-q']);
    r.git(['pull', '-q', '--no-rebase', '--ff-only', 'origin', 'main']);
    r.git(['stash', 'pop', '-q']);
    expect(readFileSync(join(r.dir, 'a.txt'), 'utf8')).toBe(A_BOTH);

    agent.prompt('commit a.txt');
    agent.bash("git -c core.hooksPath= commit -am 'agent commits a.txt'");
    r.git(['-c', 'core.hooksPath=', 'commit', '-q', '-am', 'agent commits a.txt']);
    const mine = head(r);
    agent.say('committed');
    expect(agent.stop().status).toBe(0);
    expect(noteIds(r, theirs)).toEqual([]);
    const ids = noteIds(r, mine);
    expect(ids).toHaveLength(1);
    expect(explainIds(r, mine)).toEqual(ids);
    expect(JSON.parse(showCheckpointFile(r, ids[0]!, '0/metadata.json')).files_touched).toEqual(['a.txt']);
  });

  it("a hook-less local commit whose file is neither the work tree's nor the session's step gets nothing", () => {
    const { r, agent } = world();
    agent.prompt('write b');
    agent.write('b.go', 'package b // by the agent\n');
    agent.say('wrote b');
    expect(agent.stop().status).toBe(0);
    // the person stages their own b.go, puts the agent's back in the work tree, commits without hooks
    r.write('b.go', 'package b // by the person\n');
    r.git(['add', 'b.go']);
    r.write('b.go', 'package b // by the agent\n');
    r.git(['-c', 'core.hooksPath=', 'commit', '-q', '-m', 'person commits their b.go']);
    const sha = head(r);
    const doc = JSON.parse(r.entire(['doctor', '--json']).stdout) as { findings: { kind: string }[] };
    expect(doc.findings.filter((f) => f.kind === 'unlinked-commit')).toEqual([]);
    agent.prompt('next');
    expect(noteIds(r, sha)).toEqual([]);
  });
});

describe('a hook-less commit before a hooked one in the same turn (issue 25, point 8)', () => {
  for (const who of ['the agent (git -c core.hooksPath=.git/hooks)', 'a person in another terminal']) {
    it(`${who}: the hooked commit's post-commit links the earlier one`, () => {
      const { r, agent } = world();
      agent.prompt('write a.go and commit it, then b.go');
      agent.write('a.go', 'package a\n');
      agent.bash("git add a.go && git -c core.hooksPath= commit -m 'Add a.go'");
      r.git(['add', 'a.go']);
      r.git(['-c', 'core.hooksPath=', 'commit', '-q', '-m', 'Add a.go']);
      const hookless = head(r);
      if (who.startsWith('the agent')) {
        agent.write('b.go', 'package b\n');
        r.git(['add', 'b.go']);
        expect(commit(r, ['-m', 'Add b.go']).status).toBe(0);
        expect(trailerIds(headMessage(r))).toHaveLength(1);
      } else {
        r.write('person.txt', 'not the agent\n');
        r.git(['add', 'person.txt']);
        expect(commit(r, ['-m', 'person commit'], { tty: true }).status).toBe(0);
      }
      // linked by that post-commit, before the turn ends
      const ids = noteIds(r, hookless);
      expect(ids).toHaveLength(1);
      expect(JSON.parse(showCheckpointFile(r, ids[0]!, '0/metadata.json')).files_touched).toEqual(['a.go']);
      agent.say('done');
      expect(agent.stop().status).toBe(0);
      expect(explainIds(r, hookless)).toEqual(ids);
      expect(showCheckpointFile(r, ids[0]!, '0/full.jsonl')).toContain('done'); // finalized with the whole turn
      const doc = JSON.parse(r.entire(['doctor', '--json']).stdout) as { findings: { kind: string }[] };
      expect(doc.findings.filter((f) => f.kind === 'unlinked-commit')).toEqual([]);
    });
  }
});
