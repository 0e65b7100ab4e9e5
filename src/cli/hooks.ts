/**
 * `entire hooks <agent|git> <verb> [args]`: the hot path. Hooks never fail
 * the caller (P4): every error is logged with its cause, at most one line
 * goes to stderr, and the exit code is 0.
 */
import { describeError } from '../errors.js';
import { runExitTasks } from '../exit-tasks.js';
import { mark } from '../timing.js';
import { setFaultScope } from '../faults.js';
import { writeStderr, writeStdout } from '../stderr.js';
import { memoizeConfigFiles, takeConfigFallback } from '../git/config-file.js';
import { readStdin } from './stdin.js';

/** A flow module, once loaded (marked for ENTIRE_TIMING). */
async function loaded<T>(m: Promise<T>): Promise<T> {
  const flow = await m;
  mark('flows loaded');
  return flow;
}

export async function runHookCommand(args: string[]): Promise<void> {
  mark('hooks entry');
  memoizeConfigFiles(); // hooks never write git's config: read each file once
  const [group, verb, ...rest] = args;
  setFaultScope(verb ?? '');
  const started = Date.now();
  let log: import('../log.js').Logger | undefined;
  let closeRepo: (() => void) | undefined;
  try {
    if (!group || !verb) return;
    const { openHookContext } = await import('../strategy/context.js');
    mark('context modules loaded');
    const component = group === 'git' ? 'git-hooks' : 'agent-hooks';
    if (group === 'git') {
      const opened = await openHookContext(process.cwd(), component, verb, { inheritedIndexFile: process.env['GIT_INDEX_FILE'] });
      if (!opened.ok) return;
      const ctx = opened.ctx;
      mark('context opened');
      log = ctx.log;
      closeRepo = () => ctx.repo.objects.close();
      if (verb === 'prepare-commit-msg') await (await loaded(import('../strategy/prepare-commit-msg.js'))).prepareCommitMsg(ctx, rest);
      else if (verb === 'commit-msg') await (await loaded(import('../strategy/commit-msg.js'))).commitMsg(ctx, rest);
      else if (verb === 'post-commit') await (await loaded(import('../strategy/post-commit.js'))).postCommit(ctx);
      else if (verb === 'pre-push') await (await import('../strategy/pre-push.js')).prePush(ctx, rest);
      else if (verb === 'post-rewrite') await (await loaded(import('../strategy/post-rewrite.js'))).postRewrite(ctx, rest, await readStdin());
      mark('flow done');
      ctx.log.info('hook completed', { duration_ms: Date.now() - started });
      return;
    }
    // an unreadable (e.g. oversized) input is reported once the log is open
    let stdin = '';
    let stdinError: unknown;
    // a turn-end worker (src/strategy/turn-end-worker.ts) reads its hook's input from the handover
    let handover: import('../strategy/turn-end-worker.js').Handover | null = null;
    try {
      if (process.env['ENTIRE_HANDOVER'] !== undefined) handover = (await import('../strategy/turn-end-worker.js')).takeHandover();
      stdin = handover ? handover.stdin : await readStdin();
    } catch (e) {
      stdinError = e;
    }
    const { getAgent } = await import('../agents/registry.js');
    const adapter = await getAgent(group);
    const opened = await openHookContext(process.cwd(), component, `${group} ${verb}`);
    if (!opened.ok) return; // outside a repo or not enabled: silent
    const ctx = opened.ctx;
    log = ctx.log;
    closeRepo = () => ctx.repo.objects.close();
    if (stdinError !== undefined) throw stdinError;
    const event = adapter.parseHookInput(verb, stdin);
    mark('input parsed');
    // the turn flows load only for the hooks that run them (the turn-end hook hands its work on)
    const turn = () => import('../strategy/turn.js');
    const completed: import('../log.js').LogFields = {};
    const sessionLog = ctx.log.with({ session_id: event.sessionId || undefined });
    ctx.log = sessionLog;
    if (event.refused) sessionLog.warn('hook input refused', { error: event.refused.join('; ') });
    switch (event.kind) {
      case 'session-start': {
        const msg = await (await turn()).sessionStart(ctx, event, adapter);
        const { encodeJsonLine } = await import('../go-json.js');
        // SPEC-2 §F.6: only agents with a mechanism for it get the seed
        let seeded: Record<string, unknown> = {};
        if (adapter.sessionStartContext && ctx.settings.settings.context_on_start === true) {
          const text = await (await import('../strategy/seed.js')).startContext(ctx, event).catch((e: unknown) => {
            ctx.log.warn('context_on_start: no context handed over', { error: e });
            return null;
          });
          if (text) seeded = adapter.sessionStartContext(text);
        }
        writeStdout(encodeJsonLine({ systemMessage: msg, ...seeded }) + '\n');
        break;
      }
      case 'turn-start':
        await (await turn()).turnStart(ctx, event, adapter);
        break;
      case 'turn-end': {
        const { runTurnEnd } = await import('../strategy/turn-end-worker.js');
        const r = await runTurnEnd(ctx, event, adapter, started, { stdin, argv: ['hooks', group, verb, ...rest], handover });
        if ('handedTo' in r) {
          // the worker logs this hook's `hook completed` line when the turn end is done
          sessionLog.debug('turn end handed to a worker', { duration_ms: Date.now() - started, details: { worker_pid: r.handedTo } });
          return;
        }
        if (r.skippedNoCommits) writeStderr('Entire: skipping checkpoint. Will activate after first commit.\n');
        completed.flush_wait_ms = r.flushWaitMs;
        if (r.flushOutcome !== undefined) completed.details = { flush: r.flushOutcome };
        break;
      }
      case 'session-end': {
        // a turn-end worker still at work ends the session itself when done: no wait here
        const { deferSessionEndToWorker } = await import('../strategy/deferred-session-end.js');
        const held = await deferSessionEndToWorker(ctx.repo.commonDir, event.sessionId, ctx.now());
        if (held === 'deferred') {
          completed.details = { deferred_to_worker: true };
          break;
        }
        await (await turn()).sessionEnd(ctx, event, adapter, held ?? undefined);
        break;
      }
      case 'pre-task':
      case 'post-task':
      case 'post-todo':
        await (await import('../strategy/subagent.js')).subagentHook(ctx, event, adapter);
        break;
      default:
        break;
    }
    sessionLog.info('hook completed', { duration_ms: Date.now() - started, ...completed });
  } catch (e) {
    try {
      log?.error('hook failed', { error: e, duration_ms: Date.now() - started });
    } catch {
      /* logging never throws, but be sure */
    }
    writeStderr(`[entire] ${group ?? ''} ${verb ?? ''} hook failed: ${describeError(e).split('\n')[0]!.slice(0, 200)}\n`);
  } finally {
    // a git config this process left to git (src/git/config-file.ts): one line, not silence
    const configFallback = takeConfigFallback();
    if (configFallback !== null) log?.info(`git config read by git: ${configFallback}`);
    runExitTasks();
    closeRepo?.();
    process.exitCode = 0;
  }
}
