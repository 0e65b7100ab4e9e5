/**
 * Separate-process seeder for team-sync tests and the bench: in the repository
 * `<repoDir>`, write `<count>` new checkpoints on the local metadata branch
 * (through the real store writer) and link each from a new empty commit on
 * the current branch (its `Entire-Checkpoint` trailer). Prints the ids.
 * argv: <repoDir> <count> <tag>
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { openRepo } from '../../src/git/repo.js';
import { writeCommittedSession } from '../../src/store/committed.js';

async function main(): Promise<void> {
  const [dir, countArg, tag] = process.argv.slice(2);
  const repo = await openRepo(dir!);
  const ids: string[] = [];
  for (let i = 0; i < Number(countArg ?? '1'); i++) {
    const id = randomBytes(6).toString('hex');
    const sid = `${tag}-session-${i}`;
    await writeCommittedSession(repo, {
      checkpointId: id,
      sessionId: sid,
      agent: 'Claude Code',
      transcript: `{"type":"user","uuid":"${sid}","message":{"content":"work of ${tag} number ${i}"}}\n`,
      format: 'jsonl',
      prompts: [`work of ${tag} number ${i}`],
      filesTouched: [`${tag}-${i}.txt`],
      checkpointsCount: 1,
      shadowBranch: 'entire/abc1234-e3b0c4',
    });
    // the commit's own hooks are not the subject here: the trailer is written as prepare-commit-msg would
    const c = spawnSync('git', ['-c', 'core.hooksPath=/dev/null', 'commit', '-q', '--allow-empty', '-m', `${tag} change ${i}\n\nEntire-Checkpoint: ${id}\n`], { cwd: dir, encoding: 'utf8' });
    if (c.status !== 0) throw new Error(c.stderr);
    ids.push(id);
  }
  repo.objects.close();
  process.stdout.write(ids.join('\n') + '\n');
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + '\n');
  process.exit(1);
});
