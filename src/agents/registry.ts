/**
 * Agent lookup. The static table answers name questions without loading any
 * adapter; `getAgent` imports an adapter only when it is needed (hooks run
 * one agent's code and nothing else).
 */
import { EntireError } from '../errors.js';
import type { AgentAdapter, AgentDisplayName, AgentKey, TranscriptFormat } from './types.js';

export interface AgentInfo {
  key: AgentKey;
  displayName: AgentDisplayName;
  transcriptFormat: TranscriptFormat;
}

/** In support order (SPEC §7): Claude Code, Gemini CLI, Cursor. */
const INFO: readonly AgentInfo[] = [
  { key: 'claude-code', displayName: 'Claude Code', transcriptFormat: 'jsonl' },
  { key: 'gemini', displayName: 'Gemini CLI', transcriptFormat: 'json' },
  { key: 'cursor', displayName: 'Cursor', transcriptFormat: 'jsonl' },
];

export const AGENT_KEYS: readonly AgentKey[] = INFO.map((i) => i.key);
export const DEFAULT_AGENT: AgentKey = 'claude-code';

const LOADERS: Record<AgentKey, () => Promise<AgentAdapter>> = {
  'claude-code': async () => (await import('./claude-code/index.js')).claudeCodeAgent,
  gemini: async () => (await import('./gemini/index.js')).geminiAgent,
  cursor: async () => (await import('./cursor/index.js')).cursorAgent,
};

export function isAgentKey(key: string): key is AgentKey {
  return Object.prototype.hasOwnProperty.call(LOADERS, key);
}

function unknown(key: string): EntireError {
  return new EntireError('UNKNOWN_AGENT', `Unknown agent "${key}".`, { detail: { agent: key } });
}

/** Static facts about an agent; throws UNKNOWN_AGENT. */
export function agentInfo(key: string): AgentInfo {
  const info = INFO.find((i) => i.key === key);
  if (!info) throw unknown(key);
  return info;
}

/** `Claude Code` → its info; undefined for unknown names (legacy data may have none). */
export function agentByDisplayName(name: string): AgentInfo | undefined {
  return INFO.find((i) => i.displayName === name);
}

/** The adapter for `key`, imported on first use; throws UNKNOWN_AGENT. */
export async function getAgent(key: string): Promise<AgentAdapter> {
  if (!isAgentKey(key)) throw unknown(key);
  return LOADERS[key]();
}

export function listAgents(): readonly AgentInfo[] {
  return INFO;
}
