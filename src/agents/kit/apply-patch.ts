/**
 * The apply_patch format several agents share (SPEC-3 §B.1):
 *
 *     *** Begin Patch
 *     *** Add File: <path>          then `+<line>` lines (the whole new file)
 *     *** Delete File: <path>
 *     *** Update File: <path>
 *     *** Move to: <new path>       optional, right after Update File
 *     @@ [context]                  hunks of ` ` context, `-` removed and `+` added lines
 *     *** End of File               optional, inside a hunk
 *     *** End Patch
 *
 * Parsed leniently (the model writes it): text before `*** Begin Patch` (a shell heredoc) is
 * ignored, a missing `*** End Patch` ends at the text's end, lines of no known form are skipped.
 * Pure; never throws; paths are returned as written (the caller confines them).
 */
import type { RawEdit } from './collect.js';

export interface PatchFile {
  op: 'add' | 'update' | 'delete';
  path: string;
  /** Update with `*** Move to:`: the new path (`path` is the old one). */
  moveTo?: string;
  added: string[];
  removed: string[];
}

const BEGIN = '*** Begin Patch';
const END = '*** End Patch';
const HEADER_RE = /^\*\*\* (Add File|Delete File|Update File|Move to): (.*)$/;

/** The files of a patch, in order; [] when the text holds no `*** Begin Patch`. */
export function parseApplyPatch(text: string): PatchFile[] {
  const begin = text.indexOf(BEGIN);
  if (begin === -1) return [];
  const lines = text.slice(begin + BEGIN.length).split('\n');
  const files: PatchFile[] = [];
  let cur: PatchFile | undefined;
  for (let raw of lines) {
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    if (raw.trimEnd() === END) break;
    const h = HEADER_RE.exec(raw);
    if (h) {
      const path = h[2]!.trim();
      const what = h[1]!;
      if (what === 'Move to') {
        if (cur && cur.op === 'update' && path !== '') cur.moveTo = path;
        continue;
      }
      cur = undefined;
      if (path === '') continue;
      cur = { op: what === 'Add File' ? 'add' : what === 'Delete File' ? 'delete' : 'update', path, added: [], removed: [] };
      files.push(cur);
      continue;
    }
    if (!cur || cur.op === 'delete') continue;
    if (raw.startsWith('***')) continue; // `*** End of File` and unknown markers
    if (cur.op === 'add') {
      if (raw.startsWith('+')) cur.added.push(raw.slice(1));
      continue;
    }
    if (raw.startsWith('@@')) continue;
    if (raw.startsWith('+')) cur.added.push(raw.slice(1));
    else if (raw.startsWith('-')) cur.removed.push(raw.slice(1));
  }
  return files;
}

/**
 * A patch's files as raw edits of call `id` (paths relative to `cwd` when given): `*** Add/Update
 * File` → patch, `*** Delete File` → delete, `*** Move to` → the new path with `movedFrom`.
 */
export function patchEdits(patch: string, id: string, tool: string, cwd: string | undefined): RawEdit[] {
  return parseApplyPatch(patch).map((f) => {
    const e: RawEdit = { toolUseId: id, tool, path: f.moveTo ?? f.path, kind: f.op === 'delete' ? 'delete' : 'patch', added: f.added, removed: f.removed };
    if (cwd !== undefined) e.cwd = cwd;
    if (f.moveTo !== undefined) e.movedFrom = f.path;
    return e;
  });
}

