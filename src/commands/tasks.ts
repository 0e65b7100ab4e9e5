/**
 * SPEC-2 §F.1 `entire tasks [--json]`: each supervisor task (`ENTIRE_TASK_ID`) and the agent
 * threads that worked on it, newest first. Read-only.
 */
import { openRepo } from '../git/repo.js';
import { collectThreads, groupByTask } from './threads.js';
import { processIo, timeAgo, type Io } from './common.js';
import { encodeJson } from '../go-json.js';

export async function runTasks(cwd: string, opts: { json?: boolean }, io: Io = processIo): Promise<number> {
  const repo = await openRepo(cwd);
  try {
    const tasks = groupByTask(await collectThreads(repo, { warn: io.err }));
    if (opts.json) {
      io.raw(
        encodeJson({
          tasks: tasks.map((t) => ({
            task_id: t.taskId,
            threads: t.threads.map((th) => ({
              session_id: th.sessionId,
              agent: th.agent,
              created_at: th.createdAt,
              last_used_at: th.lastUsedAt,
              attempt_count: th.attemptCount,
            })),
          })),
        }),
      );
      return 0;
    }
    if (tasks.length === 0) {
      io.out('No tasks. Sessions started with ENTIRE_TASK_ID=<id> in their environment are listed here.');
      return 0;
    }
    for (const t of tasks) {
      io.out(`Task ${t.taskId}`);
      for (const th of t.threads) {
        const attempts = `${th.attemptCount} attempt${th.attemptCount === 1 ? '' : 's'}`;
        io.out(`  ${th.agent || 'unknown agent'} ${th.sessionId}  ${attempts}, created ${timeAgo(th.createdAt)}, last used ${timeAgo(th.lastUsedAt)}`);
      }
    }
    return 0;
  } finally {
    repo.objects.close();
  }
}
