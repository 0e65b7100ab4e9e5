/**
 * The one list of agents. Everything else about an agent lives in its folder
 * (`src/agents/<key>/`); adding one is a folder and one line in the table
 * below. The table answers name questions without loading any
 * adapter; `getAgent` imports an adapter only when it is needed (hooks run
 * one agent's code and nothing else).
 */
import { EntireError } from '../errors.js';
import type { AgentAdapter, AgentDisplayName, AgentKey } from './types.js';
import type { EditsReader } from './edits.js';

export interface AgentInfo {
  key: AgentKey;
  displayName: AgentDisplayName;
}

interface Entry extends AgentInfo {
  load: () => Promise<AgentAdapter>;
  /** The `EditsReader` capability (SPEC-3 §B.1, ./edits.ts), when the agent has it; loaded apart from the adapter. */
  edits?: () => Promise<EditsReader>;
}

/** In support order (SPEC §7); the first is the default agent. */
const AGENTS: readonly Entry[] = [
  { key: 'claude-code', displayName: 'Claude Code', load: async () => (await import('./claude-code/index.js')).claudeCodeAgent , edits: async () => (await import('./claude-code/edits.js')).claudeEditsReader },
  { key: 'gemini', displayName: 'Gemini CLI', load: async () => (await import('./gemini/index.js')).geminiAgent , edits: async () => (await import('./gemini/edits.js')).geminiEditsReader },
  { key: 'cursor', displayName: 'Cursor', load: async () => (await import('./cursor/index.js')).cursorAgent , edits: async () => (await import('./cursor/edits.js')).cursorEditsReader },
  { key: 'codex', displayName: 'Codex', load: async () => (await import('./codex/index.js')).codexAgent , edits: async () => (await import('./codex/edits.js')).codexEditsReader },
  { key: 'opencode', displayName: 'OpenCode', load: async () => (await import('./opencode/index.js')).openCodeAgent , edits: async () => (await import('./opencode/edits.js')).openCodeEditsReader },
  { key: 'copilot-cli', displayName: 'Copilot CLI', load: async () => (await import('./copilot-cli/index.js')).copilotCliAgent , edits: async () => (await import('./copilot-cli/edits.js')).copilotEditsReader },
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

/**
 * The one lookup of the `EditsReader` capability (SPEC-3 §B.1): the agent's reader, or
 * undefined when it has none; throws UNKNOWN_AGENT. Loads the reader alone (not the adapter).
 */
export async function editsReaderOf(agent: AgentKey | { readonly key: AgentKey }): Promise<EditsReader | undefined> {
  const key = typeof agent === 'string' ? agent : agent.key;
  const entry = AGENTS.find((a) => a.key === key);
  if (!entry) throw unknown(key);
  return entry.edits?.();
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
