/**
 * The one list of agents. Everything else about an agent lives in its folder
 * (`src/agents/<key>/`); adding one is a folder and one line in the table
 * below. The table answers name questions without loading any
 * adapter; `getAgent` imports an adapter only when it is needed (hooks run
 * one agent's code and nothing else).
 */
import { EntireError } from '../errors.js';
import type { AgentAdapter, AgentDisplayName, AgentKey } from './types.js';

export interface AgentInfo {
  key: AgentKey;
  displayName: AgentDisplayName;
}

interface Entry extends AgentInfo {
  load: () => Promise<AgentAdapter>;
}

/** In support order (SPEC §7); the first is the default agent. */
const AGENTS: readonly Entry[] = [
  { key: 'claude-code', displayName: 'Claude Code', load: async () => (await import('./claude-code/index.js')).claudeCodeAgent },
  { key: 'gemini', displayName: 'Gemini CLI', load: async () => (await import('./gemini/index.js')).geminiAgent },
  { key: 'cursor', displayName: 'Cursor', load: async () => (await import('./cursor/index.js')).cursorAgent },
  { key: 'codex', displayName: 'Codex', load: async () => (await import('./codex/index.js')).codexAgent },
  { key: 'opencode', displayName: 'OpenCode', load: async () => (await import('./opencode/index.js')).openCodeAgent },
  { key: 'copilot-cli', displayName: 'Copilot CLI', load: async () => (await import('./copilot-cli/index.js')).copilotCliAgent },
];

const INFO: readonly AgentInfo[] = AGENTS.map(({ key, displayName }) => ({ key, displayName }));
export const AGENT_KEYS: readonly AgentKey[] = INFO.map((i) => i.key);
export const DEFAULT_AGENT: AgentKey = AGENTS[0]!.key;

export function isAgentKey(key: string): key is AgentKey {
  return AGENTS.some((a) => a.key === key);
}

function unknown(key: string): EntireError {
  return new EntireError('UNKNOWN_AGENT', `Unknown agent "${key}" (known agents: ${AGENT_KEYS.join(', ')}).`, { detail: { agent: key } });
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
  const entry = AGENTS.find((a) => a.key === key);
  if (!entry) throw unknown(key);
  return entry.load();
}

export function listAgents(): readonly AgentInfo[] {
  return INFO;
}

/** `claude-code, gemini, cursor` (help texts and errors). */
export function agentKeyList(): string {
  return AGENT_KEYS.join(', ');
}

/** Every adapter, in support order (commands only: this loads them all). */
export async function allAgents(): Promise<AgentAdapter[]> {
  return Promise.all(AGENT_KEYS.map((k) => getAgent(k)));
}

/**
 * The agent whose transcript `text` recognisably is, for data that names
 * none (SPEC §2.7): the first agent other than the default that recognises
 * it; undefined when none does (the caller decides what the default means).
 */
export async function recognizeTranscript(text: string): Promise<AgentAdapter | undefined> {
  for (const a of await allAgents()) if (a.key !== DEFAULT_AGENT && a.recognizesTranscript(text)) return a;
  return undefined;
}

/**
 * The adapter that reads stored data: the agent its display name says, else
 * the one its transcript is recognisably from, else the default (SPEC §2.10).
 */
export async function agentForStoredData(displayName: string | undefined, transcript?: Buffer | string): Promise<AgentAdapter> {
  const named = displayName ? agentByDisplayName(displayName) : undefined;
  if (named) return getAgent(named.key);
  if (transcript !== undefined && transcript.length > 0) {
    const found = await recognizeTranscript(typeof transcript === 'string' ? transcript : transcript.toString('utf8'));
    if (found) return found;
  }
  return getAgent(DEFAULT_AGENT);
}

/** Repo-relative directories of every agent's own configuration (trailing `/`). */
export async function agentConfigDirs(): Promise<string[]> {
  return (await allAgents()).flatMap((a) => [...a.configDirs]);
}
