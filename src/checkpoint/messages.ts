/** SPEC §2.8: byte-exact commit messages on Entire branches. */

export const STRATEGY = 'manual-commit';

export function condenseMessage(o: { checkpointId: string; sessionId: string; agent?: string; shadowBranch: string }): string {
  let m = `Checkpoint: ${o.checkpointId}\n\nEntire-Session: ${o.sessionId}\nEntire-Strategy: ${STRATEGY}\n`;
  if (o.agent) m += `Entire-Agent: ${o.agent}\n`;
  m += `Ephemeral-branch: ${o.shadowBranch}\n`;
  return m;
}

export function finalizeMessage(checkpointId: string): string {
  return `Finalize transcript for Checkpoint: ${checkpointId}`;
}

export const INIT_MESSAGE = 'Initialize sessions branch';
export const MERGE_MESSAGE = 'Merge remote session logs';
export const CARRY_FORWARD_SUBJECT = 'carry forward: uncommitted session files';

export function shadowStepMessage(o: { subject: string; sessionId: string; taskToolUseId?: string }): string {
  const meta = o.taskToolUseId
    ? `Entire-Metadata-Task: .entire/metadata/${o.sessionId}/tasks/${o.taskToolUseId}`
    : `Entire-Metadata: .entire/metadata/${o.sessionId}`;
  return `${o.subject}\n\n${meta}\nEntire-Session: ${o.sessionId}\nEntire-Strategy: ${STRATEGY}\n`;
}

const POLITE_PREFIX = /^(?:(?:can|could|would|will) you(?: please)?|please|let's|lets|let us|i'd like you to|i want you to)[\s,:]+/i;

/**
 * Subject of a shadow step: the turn's last (already redacted) prompt without
 * politeness or a trailing `?`, ≤ 72 code points, capitalised.
 */
export function stepSubject(lastPrompt: string | undefined, agentName: string): string {
  let s = (lastPrompt ?? '').replace(/\s+/g, ' ').trim();
  for (let i = 0; i < 3; i++) {
    const next = s.replace(POLITE_PREFIX, '');
    if (next === s) break;
    s = next;
  }
  s = s.replace(/\?+$/, '').trim();
  if (s === '') return `${agentName} session updates`;
  const cps = Array.from(s);
  if (cps.length > 72) s = cps.slice(0, 72).join('');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Trailer values of a commit message (`Key: value` lines), first occurrence wins. */
export function parseTrailerValues(message: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of message.split('\n')) {
    const m = /^([A-Za-z][A-Za-z0-9-]*):[ \t]*(.*?)\s*$/.exec(line);
    if (m && m[1] && out[m[1]] === undefined) out[m[1]] = m[2] ?? '';
  }
  return out;
}
