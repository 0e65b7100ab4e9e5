/**
 * Agent hooks that are installed but would not run (SPEC-2 §C: an agent that
 * loads a repository's hooks only in a trusted folder, or only once each
 * handler is approved): `status` and `doctor` say so, as `enable` does.
 */
import { allAgents } from './registry.js';

export interface AgentHookGap {
  agent: string;
  displayName: string;
  /** What is missing and how to grant it. */
  gap: string;
}

/** The gaps of every agent whose hooks this repository has installed (never throws). */
export async function agentHookGaps(repoRoot: string, env: NodeJS.ProcessEnv = process.env): Promise<AgentHookGap[]> {
  const out: AgentHookGap[] = [];
  for (const a of await allAgents()) {
    if (!a.hookGaps) continue;
    try {
      if (!a.hooksInstalled(repoRoot)) continue;
      for (const gap of await a.hookGaps(repoRoot, env)) out.push({ agent: a.key, displayName: a.displayName, gap });
    } catch {
      /* advice only */
    }
  }
  return out;
}
