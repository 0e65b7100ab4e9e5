/**
 * Agent hooks that are installed but that the agent will not run until the
 * user trusts or approves them (SPEC-2 §C.1): what `status` and `doctor`
 * (`agent-hooks-untrusted`) report, from each adapter that gates its hooks.
 */
import { allAgents } from '../agents/registry.js';

export interface AgentTrustGap {
  agent: string;
  displayName: string;
  /** `! …` lines saying what is missing and how to grant it. */
  lines: string[];
}

export async function agentTrustGaps(repoRoot: string, env: NodeJS.ProcessEnv = process.env): Promise<AgentTrustGap[]> {
  const out: AgentTrustGap[] = [];
  for (const a of await allAgents()) {
    if (!a.hookTrustGaps || !a.hooksInstalled(repoRoot)) continue;
    let lines: string[];
    try {
      lines = await a.hookTrustGaps(repoRoot, env);
    } catch {
      continue; // advice only: never a reason for a command to fail
    }
    if (lines.length > 0) out.push({ agent: a.key, displayName: a.displayName, lines });
  }
  return out;
}

/**
 * Agent hooks installed as an older Entire wrote them (e.g. a plugin file of an older version):
 * what `status` and `doctor` (`agent-hooks-outdated`) report, with the fix (`entire enable` again).
 */
export async function agentHooksOutdated(repoRoot: string): Promise<AgentTrustGap[]> {
  const out: AgentTrustGap[] = [];
  for (const a of await allAgents()) {
    if (!a.hooksOutdated) continue;
    let lines: string[];
    try {
      lines = a.hooksOutdated(repoRoot);
    } catch {
      continue; // advice only
    }
    if (lines.length > 0) out.push({ agent: a.key, displayName: a.displayName, lines });
  }
  return out;
}
