/**
 * Reading the layers back (SPEC-2 §F.5, §F.3, §F.6): from a slot's stored `context.md` when it
 * is layered, else recomputed from the slot's stored (redacted) transcript; or from a live
 * session's transcript, redacted on the way out.
 */
import type { Repo } from '../git/repo.js';
import type { SessionState } from '../session/state.js';
import { readSessionContent } from '../store/routing.js';
import { agentByDisplayName, agentForStoredData, getAgent, DEFAULT_AGENT } from '../agents/registry.js';
import { readTranscriptFile, transcriptPathProblem } from '../trust/transcript-file.js';
import { contextLayers, type Layers } from './layers.js';

export interface SessionLayers {
  sessionId: string;
  /** The agent's display name, `''` when unknown. */
  agent: string;
  l1: string;
  l2: string;
}

/** The `## Execution Register` / `## Cognitive Cache` blocks of a layered `context.md`, else null. */
export function splitStoredLayers(md: string): Layers | null {
  const block = (heading: string): string => {
    const at = md.indexOf(`\n${heading}\n`);
    if (at < 0) return '';
    const start = at + 1;
    const end = md.indexOf('\n\n## ', start);
    return (end < 0 ? md.slice(start) : md.slice(start, end)).replace(/\n+$/, '');
  };
  const l1 = block('## Execution Register');
  return l1 ? { l1, l2: block('## Cognitive Cache') } : null;
}

/** One slot's layers; null when it has neither a prompt nor a transcript to derive them from. */
export async function slotLayers(repo: Repo, checkpointId: string, slot: number): Promise<SessionLayers | null> {
  const content = await readSessionContent(repo, checkpointId, { slot });
  const sessionId = content.metadata.session_id;
  const agent = content.metadata.agent ?? '';
  const stored = content.context ? splitStoredLayers(content.context) : null;
  if (stored) return { sessionId, agent, ...stored };
  // older slots: recomputed from the stored transcript (already redacted)
  const adapter = await agentForStoredData(content.metadata.agent, content.transcript ?? undefined);
  const layers = contextLayers({ adapter, transcript: content.transcript, format: content.format, prompts: content.prompts, root: repo.root });
  return layers ? { sessionId, agent, ...layers } : null;
}

/**
 * One slot's layers for a seed or start context (issue 25 #3a): always re-derived from the
 * slot's stored transcript (or prompts), so the §F.4 budgets hold whatever its `context.md`
 * says; the stored file only when nothing can be derived. Callers still cap and fence them
 * (./fence.ts).
 */
export async function derivedSlotLayers(repo: Repo, checkpointId: string, slot: number): Promise<SessionLayers | null> {
  const content = await readSessionContent(repo, checkpointId, { slot });
  const sessionId = content.metadata.session_id;
  const agent = content.metadata.agent ?? '';
  if (content.transcript || content.prompts.length > 0) {
    const adapter = await agentForStoredData(content.metadata.agent, content.transcript ?? undefined);
    const layers = contextLayers({ adapter, transcript: content.transcript, format: content.format, prompts: content.prompts, root: repo.root });
    if (layers) return { sessionId, agent, ...layers };
  }
  const stored = content.context ? splitStoredLayers(content.context) : null;
  return stored ? { sessionId, agent, ...stored } : null;
}

/** A live session's layers, from its transcript on disk (SPEC-2 §A.5 checks), redacted. */
export async function liveLayers(repo: Repo, state: SessionState): Promise<SessionLayers | null> {
  const info = state.agent_type ? agentByDisplayName(state.agent_type) : undefined;
  const adapter = await getAgent(info?.key ?? DEFAULT_AGENT);
  const path = state.transcript_path;
  const text = path && transcriptPathProblem(path, adapter.transcriptRoot(repo.root)) === null ? readTranscriptFile(path) : null;
  const prompts = text ? adapter.analyzeTranscript(text.toString('utf8')).prompts : [];
  const layers = contextLayers({ adapter, transcript: text, format: adapter.transcriptFormat(path ?? ''), prompts, root: repo.root });
  if (!layers) return null;
  const { redactString } = await import('../redact/index.js');
  return { sessionId: state.session_id, agent: state.agent_type ?? '', l1: redactString(layers.l1), l2: layers.l2 ? redactString(layers.l2) : '' };
}
