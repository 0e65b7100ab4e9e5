/**
 * Codex's edits (SPEC-3 §B.1), from a rollout (JSONL; position = line index):
 *
 * - `apply_patch` calls (`custom_tool_call` `input`, or `function_call` `arguments`; also a patch
 *   handed to the shell, `apply_patch <<'EOF'` or argv `["apply_patch", …]`) → one edit
 *   per file of the patch (kit/apply-patch.ts): `*** Add File` / `*** Update File` → patch,
 *   `*** Delete File` → delete, `*** Move to` → `movedFrom`; paths relative to the latest
 *   `turn_context.cwd`;
 * - an `item_completed` `FileChange` (`changes`: `add` with the whole `content`, `update` with
 *   the applied `unified_diff`, `delete`): for an apply_patch call of the same id, its lines
 *   replace the patch's (a patch may remove and re-add a line it keeps); without such a call (a
 *   patch applied another way, e.g. through the shell) it is the edit itself, tool `FileChange`;
 * - the call's output saying it failed (`Exit code: N` ≠ 0, `apply_patch verification failed`,
 *   rejected) or a `FileChange` with status `failed`/`declined` drops its edits.
 *
 * Turns: each `task_started` opens one; the prompt index follows `UserMessage` items (the typed
 * user `response_item`s in a rollout without them), as ./rollout.ts counts prompts.
 */
import { EDITS_LIMITS, type EditsReader, type EditsResult, type ReadEditsOptions } from '../edits.js';
import { EditCollector, transcriptText, type RawEdit } from '../kit/collect.js';
import { patchEdits } from '../kit/apply-patch.js';
import { jsonlRecords } from '../kit/jsonl-lines.js';
import { splitLines } from '../kit/lines.js';
import { parseUnifiedDiff } from '../kit/unified-diff.js';
import { cleanPrompt } from '../kit/text.js';
import { applyPatchText, isTypedUserMessage, itemText, messageText } from './rollout.js';
import { isObj } from '../kit/obj.js';

const TOOLS = ['apply_patch'] as const;
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const NEEDLES = ['"task_started"', '"turn_context"', '"session_meta"', '"item_completed"', '"response_item"'];
const EXIT_RE = /^(?:Process exited with code|Exit code:)\s*(-?\d+)\s*$/m;

/**
 * A patch handed to the shell (`["apply_patch", "<patch>"]`, or a script with an
 * `apply_patch <<'EOF'` heredoc), as older Codex versions and some models do; null: not one.
 */
function shellPatch(p: Record<string, unknown>): string | null {
  const name = str(p['name']);
  if (p['type'] !== 'local_shell_call' && !['shell', 'exec_command', 'shell_command', 'container.exec'].includes(name)) return null;
  let args: unknown = p['type'] === 'local_shell_call' ? p['action'] : p['arguments'];
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return null;
    }
  }
  if (!isObj(args)) return null;
  const cmd = args['cmd'] ?? args['command'];
  const text = typeof cmd === 'string' ? cmd : Array.isArray(cmd) ? cmd.filter((x) => typeof x === 'string').join('\n') : '';
  return /\bapply_patch\b/.test(text) && text.includes('*** Begin Patch') ? text : null;
}

function outputFailed(raw: unknown): boolean {
  if (isObj(raw)) return raw['success'] === false;
  const text = str(raw);
  const exit = EXIT_RE.exec(text);
  if (exit) return exit[1] !== '0';
  const t = text.trim();
  return /^(?:apply_patch verification failed|error:|failed to)/i.test(t) || (/\brejected by (?:the )?user\b/i.test(t) && t.length < 400);
}

function fileChangeEdits(item: Record<string, unknown>, cwd: string | undefined): RawEdit[] {
  const changes = item['changes'];
  if (!isObj(changes)) return [];
  const id = str(item['id']);
  const out: RawEdit[] = [];
  for (const [path, ch] of Object.entries(changes)) {
    if (!isObj(ch)) continue;
    const base = { toolUseId: id, tool: 'FileChange', path, ...(cwd !== undefined ? { cwd } : {}) };
    const type = ch['type'];
    if (type === 'add' && typeof ch['content'] === 'string') out.push({ ...base, kind: 'patch', added: splitLines(ch['content']), removed: [] });
    else if (type === 'delete') out.push({ ...base, kind: 'delete', added: [], removed: typeof ch['content'] === 'string' ? splitLines(ch['content']) : [] });
    else if (type === 'update') {
      const diff = typeof ch['unified_diff'] === 'string' ? parseUnifiedDiff(ch['unified_diff']) : undefined;
      if (!diff) continue;
      const moved = ch['move_path'];
      out.push({ ...base, ...(typeof moved === 'string' && moved !== '' ? { path: moved, movedFrom: path } : {}), kind: 'patch', added: diff.added, removed: diff.removed });
    }
  }
  return out;
}

function readCodexEdits(transcript: Buffer | string, opts: ReadEditsOptions): EditsResult {
  const c = new EditCollector(opts);
  const text = transcriptText(transcript, opts, c);
  let turn = 0;
  let items = -1;
  let typed = -1;
  let hasUserItems = false;
  let cwd: string | undefined;
  /** Edits with both prompt counts (which one the rollout uses is known at its end). */
  const pending: Array<{ raw: RawEdit; at: { turn: number; items: number; typed: number; position: number } }> = [];
  const push = (raw: RawEdit, at: (typeof pending)[number]['at']): void => {
    if (pending.length >= EDITS_LIMITS.maxEdits) c.overBudget();
    else pending.push({ raw, at });
  };
  const callIds = new Set<string>();
  const fileChanges: Array<{ item: Record<string, unknown>; cwd: string | undefined; at: { turn: number; items: number; typed: number; position: number } }> = [];
  const failed = new Set<string>();
  for (const { index, value: v } of jsonlRecords(text, NEEDLES, c)) {
    const p = v['payload'];
    if (!isObj(p)) continue;
    const at = () => ({ turn, items, typed, position: index });
    switch (v['type']) {
      case 'session_meta':
        if (typeof p['cwd'] === 'string') c.paths.addRoot(p['cwd']);
        continue;
      case 'turn_context':
        if (typeof p['cwd'] === 'string' && p['cwd'] !== '') cwd = p['cwd'];
        continue;
      case 'event_msg': {
        if (p['type'] === 'task_started') turn++;
        if (p['type'] !== 'item_completed' || !isObj(p['item'])) continue;
        const item = p['item'];
        if (item['type'] === 'UserMessage') {
          hasUserItems = true;
          if (cleanPrompt(itemText(item)) !== '') items++;
        } else if (item['type'] === 'FileChange') {
          const status = str(item['status']);
          if (status === 'failed' || status === 'declined') failed.add(str(item['id']));
          else fileChanges.push({ item, cwd, at: at() });
        }
        continue;
      }
      case 'response_item':
        break;
      default:
        continue;
    }
    if (p['type'] === 'message') {
      if (p['role'] === 'user' && isTypedUserMessage(p) && cleanPrompt(messageText(p)) !== '') typed++;
      continue;
    }
    if (p['type'] === 'function_call_output' || p['type'] === 'custom_tool_call_output') {
      if (outputFailed(p['output'])) failed.add(str(p['call_id']));
      continue;
    }
    const patch = p['name'] === 'apply_patch' ? applyPatchText(p) : shellPatch(p);
    if (patch === null) continue;
    const id = str(p['call_id']) || str(p['id']);
    const edits = patch === undefined ? [] : patchEdits(patch, id, 'apply_patch', cwd);
    if (edits.length === 0) {
      if (c.wanted(index)) c.malformed();
      continue;
    }
    if (id !== '') callIds.add(id);
    for (const raw of edits) push(raw, at());
  }
  const applied: Array<{ id: string; raw: RawEdit }> = [];
  for (const fc of fileChanges) {
    const id = str(fc.item['id']);
    const raws = fileChangeEdits(fc.item, fc.cwd);
    // the call's own FileChange: the diff Codex applied (whole lines, with context) replaces the patch's lines
    if (id !== '' && callIds.has(id)) for (const raw of raws) applied.push({ id, raw });
    else for (const raw of raws) push(raw, fc.at);
  }
  // a rollout with UserMessage items counts them as its prompts, else the typed user messages (as ./rollout.ts)
  const useItems = hasUserItems;
  pending.sort((a, b) => a.at.position - b.at.position);
  for (const { raw, at } of pending) {
    c.add(raw, { turn: at.turn, promptIndex: useItems ? at.items : at.typed, position: at.position });
  }
  for (const { id, raw } of applied) c.applied(id, raw.path, raw.cwd, raw.added, raw.removed);
  for (const id of failed) c.fail(id);
  return c.result();
}

export const codexEditsReader: EditsReader = { tools: TOOLS, readEdits: readCodexEdits };
