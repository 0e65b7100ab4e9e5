/**
 * Separate-process writer for concurrency tests: writes one session into a
 * checkpoint. argv: <repoDir> <checkpointId> <sessionId> [count]
 */
import { openRepo } from '../../src/git/repo.js';
import { writeCommittedSession } from '../../src/store/committed.js';

async function main(): Promise<void> {
  const [dir, id, sid, countArg] = process.argv.slice(2);
  const repo = await openRepo(dir!);
  const count = Number(countArg ?? '1');
  for (let i = 0; i < count; i++) {
    await writeCommittedSession(repo, {
      checkpointId: id!,
      sessionId: sid!,
      agent: 'Claude Code',
      transcript: `{"type":"user","uuid":"${sid}-${i}","message":{"content":"hello from ${sid}"}}\n`,
      format: 'jsonl',
      prompts: [`prompt of ${sid}`],
      filesTouched: [`${sid}.txt`],
      checkpointsCount: 1,
      shadowBranch: 'entire/abc1234-e3b0c4',
    });
  }
  repo.objects.close();
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + '\n');
  process.exit(1);
});
