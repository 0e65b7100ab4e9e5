/**
 * Codex runs project hooks only in a trusted project, and each handler only
 * once approved (SPEC-2 §C.1): until then it silently runs nothing. We never
 * leave that unsaid: `enable`, `status` and `doctor` report what is missing,
 * as Codex itself decides it (`codex app-server` `hooks/list`, ≤ 10 s), and
 * only `enable --approve-agent-hooks`, confirmed at a terminal, grants it —
 * by having Codex write its own `config.toml`: each of our handlers'
 * `trusted_hash` (a handler is ours only when its command is byte-for-byte
 * ours), and the project's trust only after a question of its own, since a
 * trusted project's `.codex/config.toml` is honoured too (issue 25, point 5).
 */
import { realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tryLoadSettings } from '../kit/settings-file.js';
import { AppServer, type CodexHook } from './app-server.js';
import { CODEX_HOOKS, CODEX_HOOKS_FILE, codexCommand } from './hooks.js';

const APPROVE = 'entire enable --agent codex --approve-agent-hooks';

function roots(repoRoot: string): string[] {
  const out = [resolve(repoRoot)];
  try {
    const real = realpathSync(repoRoot);
    if (!out.includes(real)) out.push(real);
  } catch {
    /* vanished */
  }
  return out;
}

/** Codex's `eventName` (`sessionStart`) of one of our events (`SessionStart`). */
const eventNameOf = (event: string): string => event[0]!.toLowerCase() + event.slice(1);

/**
 * Our handlers among those Codex lists: in this project's `.codex/hooks.json`, with a command
 * byte-for-byte one of ours under its own event. A handler Codex lists without a command, or
 * with any other (a clone's `curl … | sh`, `entire hooks codex stop; sh x`), is never ours to
 * approve (issue 25, point 5).
 */
function ours(hooks: CodexHook[], repoRoot: string): CodexHook[] {
  const files = new Set(roots(repoRoot).map((r) => join(r, CODEX_HOOKS_FILE)));
  return hooks.filter((h) => {
    const file = h.sourcePath ?? h.key.replace(/:[a-z_]+:\d+:\d+$/, '');
    if (!files.has(file) || h.command === undefined) return false;
    return CODEX_HOOKS.some((x) => codexCommand(x.verb) === h.command && eventNameOf(x.event) === h.eventName);
  });
}

/** How many of our handlers the project's file holds. */
function installedCount(repoRoot: string): number {
  const hooks = tryLoadSettings(join(repoRoot, CODEX_HOOKS_FILE))?.['hooks'];
  if (hooks === null || typeof hooks !== 'object') return 0;
  return CODEX_HOOKS.filter((h) => JSON.stringify((hooks as Record<string, unknown>)[h.event] ?? null).includes(`"entire hooks codex ${h.verb}"`)).length;
}

function untrustedProjectLines(n: number): string[] {
  return [
    '! Codex ignores .codex/hooks.json until this project is trusted',
    `! Codex runs ${n} Entire hook(s) only after you approve them in codex (/hooks), or run: ${APPROVE}`,
  ];
}

function unapprovedLine(pending: CodexHook[]): string {
  const names = pending.map((h) => `${h.eventName || h.key}${h.trustStatus === 'modified' ? ' (changed since approved)' : ''}`).join(', ');
  return `! Codex runs ${pending.length} Entire hook(s) only after you approve them in codex (/hooks): ${names}; or run: ${APPROVE}`;
}

/** What stands between our installed hooks and Codex running them ([] = nothing). Never throws. */
export async function codexTrustGaps(repoRoot: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const n = installedCount(repoRoot);
  if (n === 0) return [];
  const server = await AppServer.open(repoRoot, env);
  if (server === null) {
    return [`! Codex runs Entire's hooks only in a trusted project and once each is approved (codex /hooks); codex is not on PATH, so this could not be checked`];
  }
  try {
    const listed = ours(await server.listHooks(resolve(repoRoot)), repoRoot);
    if (listed.length === 0) return untrustedProjectLines(n);
    const pending = listed.filter((h) => h.trustStatus !== 'trusted');
    return pending.length === 0 ? [] : [unapprovedLine(pending)];
  } catch (e) {
    return [`! Codex runs Entire's hooks only once approved (codex /hooks); asking codex failed (${(e as Error).message}), so this could not be checked`];
  } finally {
    server.close();
  }
}

/** The question before Codex is told to trust the project: what that lets the clone do. */
export function trustQuestion(root: string): string {
  return (
    `Codex runs no hook of ${root} until it trusts the project, and trusting it also makes Codex load ` +
    `this clone's own .codex/ configuration (config.toml: MCP servers, other hooks, sandbox and approval settings). ` +
    `Trust ${root} in Codex?`
  );
}

/**
 * `enable --approve-agent-hooks`: approve each of our handlers at the hash Codex computes,
 * through Codex's own config writer. An untrusted project is trusted first only when `ask`
 * (its own question, saying what trust grants) says yes.
 */
export async function approveCodexHooks(repoRoot: string, env: NodeJS.ProcessEnv, ask: (question: string) => Promise<boolean>): Promise<string[]> {
  const root = resolve(repoRoot);
  const server = await AppServer.open(repoRoot, env);
  if (server === null) return ['! codex is not on PATH: nothing approved'];
  try {
    let listed = ours(await server.listHooks(root), repoRoot);
    const lines: string[] = [];
    if (listed.length === 0) {
      if (!(await ask(trustQuestion(root)))) return [`Codex does not trust ${root}: nothing approved`, ...untrustedProjectLines(installedCount(repoRoot))];
      await server.upsertConfig([{ keyPath: 'projects', value: { [root]: { trust_level: 'trusted' } } }]);
      lines.push(`✓ Codex trusts ${root}`);
      listed = ours(await server.listHooks(root), repoRoot);
    }
    const pending = listed.filter((h) => h.trustStatus !== 'trusted');
    if (pending.length > 0) {
      const state: Record<string, { trusted_hash: string }> = {};
      for (const h of pending) state[h.key] = { trusted_hash: h.currentHash };
      await server.upsertConfig([{ keyPath: 'hooks.state', value: state }]);
    }
    const after = ours(await server.listHooks(root), repoRoot);
    const still = after.filter((h) => h.trustStatus !== 'trusted');
    if (after.length === 0) lines.push(...untrustedProjectLines(installedCount(repoRoot)));
    else if (still.length > 0) lines.push(unapprovedLine(still));
    else lines.push(`✓ Codex approved ${after.length} Entire hook(s)`);
    return lines;
  } catch (e) {
    return [`! approving Codex hooks failed: ${(e as Error).message}`];
  } finally {
    server.close();
  }
}
