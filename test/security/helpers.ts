/**
 * An attacker's toolkit for test/security: checkpoint trees crafted with git
 * plumbing (any name, any mode, raw tree bytes git's porcelain would refuse),
 * and the victim's view (a fingerprint of $HOME before and after).
 */
import { expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { TempRepo } from '../helpers/repo.js';
import { snapshot, diffSnapshots } from '../stress/helpers.js';

export type Entry = { mode: string; oid: string };
/** A tree spec: a string/Buffer is a 100644 blob, a nested object a tree, an Entry anything. */
export type Spec = { [name: string]: string | Buffer | Spec | Entry };

function isEntry(v: unknown): v is Entry {
  return typeof v === 'object' && v !== null && !Buffer.isBuffer(v) && typeof (v as Entry).mode === 'string' && typeof (v as Entry).oid === 'string';
}

export function writeBlob(r: TempRepo, content: string | Buffer): string {
  return execFileSync('git', ['hash-object', '-w', '--stdin'], { cwd: r.dir, env: r.env, input: content, encoding: 'utf8' }).trim();
}

/** A raw tree object: entries written as given (names unchecked, order as git sorts). */
export function writeRawTree(r: TempRepo, entries: { mode: string; name: string; oid: string }[]): string {
  const key = (e: { mode: string; name: string }) => (e.mode === '40000' || e.mode === '040000' ? e.name + '/' : e.name);
  const sorted = [...entries].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  const parts: Buffer[] = [];
  for (const e of sorted) parts.push(Buffer.from(`${e.mode.replace(/^0+/, '')} `, 'latin1'), Buffer.from(e.name, 'utf8'), Buffer.from([0]), Buffer.from(e.oid, 'hex'));
  return execFileSync('git', ['hash-object', '-t', 'tree', '--literally', '-w', '--stdin'], { cwd: r.dir, env: r.env, input: Buffer.concat(parts), encoding: 'utf8' }).trim();
}

export function writeTree(r: TempRepo, spec: Spec): string {
  const entries: { mode: string; name: string; oid: string }[] = [];
  for (const [name, v] of Object.entries(spec)) {
    if (typeof v === 'string' || Buffer.isBuffer(v)) entries.push({ mode: '100644', name, oid: writeBlob(r, v) });
    else if (isEntry(v)) entries.push({ mode: v.mode, name, oid: v.oid });
    else entries.push({ mode: '40000', name, oid: writeTree(r, v) });
  }
  return writeRawTree(r, entries);
}

export function commitTree(r: TempRepo, tree: string, parents: string[], message: string): string {
  const args = ['commit-tree', tree];
  for (const p of parents) args.push('-p', p);
  return execFileSync('git', args, { cwd: r.dir, env: r.env, input: message, encoding: 'utf8' }).trim();
}

/** Session metadata.json as the Go tool / we write it, with `over` merged on top. */
export function slotMetadata(id: string, sessionId: unknown, over: Record<string, unknown> = {}): string {
  return (
    JSON.stringify(
      {
        cli_version: '0.4.0',
        checkpoint_id: id,
        session_id: sessionId,
        strategy: 'manual-commit',
        created_at: '2026-11-20T10:00:00.000Z',
        checkpoints_count: 1,
        files_touched: ['a.txt'],
        agent: 'Claude Code',
        ...over,
      },
      null,
      2,
    ) + '\n'
  );
}

export function transcriptLine(text: string, uuid = 'u1'): string {
  return JSON.stringify({ type: 'user', uuid, message: { role: 'user', content: text } }) + '\n';
}

/** A checkpoint directory spec: root metadata.json + numbered slots. */
export function checkpointSpec(id: string, slots: Spec[]): Spec {
  const spec: Spec = {
    'metadata.json':
      JSON.stringify({ checkpoint_id: id, strategy: 'manual-commit', checkpoints_count: slots.length, files_touched: ['a.txt'], sessions: [] }, null, 2) + '\n',
  };
  slots.forEach((s, i) => (spec[String(i)] = s));
  return spec;
}

/** A metadata-branch root tree holding the given checkpoints (id → checkpoint spec). */
export function branchTree(r: TempRepo, checkpoints: Record<string, Spec>): string {
  const shards: Record<string, Spec> = {};
  for (const [id, cp] of Object.entries(checkpoints)) {
    (shards[id.slice(0, 2)] ??= {})[id.slice(2)] = cp;
  }
  return writeTree(r, shards);
}

/** The agents' transcript roots under $HOME (SPEC-2 §A.5): where a restore may write. */
export const AGENT_ROOTS = ['.claude/projects', '.gemini/tmp', '.cursor/projects'];
export const AGENT_HOMES = ['.claude', '.gemini', '.cursor'];
/** Files where restoring a session registers its project, as the agent itself does (Gemini CLI, SPEC-2 §B.8). */
export const AGENT_REGISTRIES = ['.gemini/projects.json'];

/** Fingerprint of $HOME outside the roots entire may write to (agent transcript roots, the code cache). */
export function homeSnapshot(r: TempRepo): Map<string, string> {
  const roots = [...AGENT_ROOTS, ...AGENT_REGISTRIES, '.cache'];
  const m = snapshot(r.home, (rel) => roots.some((x) => rel === x || rel.startsWith(x + '/')));
  for (const h of AGENT_HOMES) m.delete(`${h}/`); // an agent home holding a root may be created
  return m;
}

export function expectHomeUnchanged(r: TempRepo, before: Map<string, string>): void {
  expect(diffSnapshots(before, homeSnapshot(r))).toEqual([]);
}

/** Files in the agent transcript root (what a restore may write). */
export function transcriptRootSnapshot(r: TempRepo): Map<string, string> {
  return snapshot(join(r.home, '.claude', 'projects'));
}

/** Every control byte a terminal would act on, C1 in UTF-8 form, and bidi controls. */
// eslint-disable-next-line no-control-regex
export const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

export function expectNoRawControl(text: string, what: string): void {
  const m = RAW_CONTROL.exec(text);
  expect(m, `${what}: raw control character U+${m ? m[0].codePointAt(0)!.toString(16).padStart(4, '0') : ''} at ${m?.index}: ${JSON.stringify(text.slice(Math.max(0, (m?.index ?? 0) - 40), (m?.index ?? 0) + 40))}`).toBeNull();
}

/** Entries of a tree object as `git ls-tree` lists them. */
export function lsTree(r: TempRepo, tree: string): { mode: string; name: string; oid: string }[] {
  const out = execFileSync('git', ['ls-tree', '-z', tree], { cwd: r.dir, env: r.env, encoding: 'utf8' });
  return out
    .split('\0')
    .filter(Boolean)
    .map((l) => {
      const tab = l.indexOf('\t');
      const [mode, , oid] = l.slice(0, tab).split(' ');
      return { mode: mode!, name: l.slice(tab + 1), oid: oid! };
    });
}

/** `tree` with the entry at `path` replaced by (mode, oid), or added; parents rebuilt. */
export function replaceInTree(r: TempRepo, tree: string, path: string, mode: string, oid: string): string {
  const [head, ...rest] = path.split('/');
  const entries = lsTree(r, tree).filter((e) => e.name !== head);
  if (rest.length === 0) return writeRawTree(r, [...entries, { mode, name: head!, oid }]);
  const sub = lsTree(r, tree).find((e) => e.name === head);
  const subTree = sub ? sub.oid : writeRawTree(r, []);
  return writeRawTree(r, [...entries, { mode: '40000', name: head!, oid: replaceInTree(r, subTree, rest.join('/'), mode, oid) }]);
}
