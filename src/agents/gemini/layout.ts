/**
 * Where Gemini CLI keeps sessions (SPEC-2 §B.7, §B.8), computed as the CLI
 * computes it:
 *
 * - its home is `$GEMINI_CLI_HOME/.gemini`, else `$HOME/.gemini`;
 * - a project's sessions are in `tmp/<slug>/chats/session-<YYYY-MM-DDTHH-MM>-<sid[0:8]>.jsonl`,
 *   the slug registered in `projects.json` `{"projects":{"<abs root>":"<slug>"}}`
 *   and owned through `tmp/<slug>/.project_root` (and `history/<slug>/.project_root`);
 * - before 0.61 the directory was `tmp/<sha256(root)>/chats` and files were
 *   `.json` documents (still read).
 *
 * `ENTIRE_TEST_GEMINI_PROJECT_DIR` (tests) names the chats directory itself.
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { crypto } from '../../builtins.js';
import { homeDir } from '../kit/home-paths.js';

export const PROJECT_ROOT_MARKER = '.project_root';

function testChatsDir(): string | undefined {
  return process.env['ENTIRE_TEST_GEMINI_PROJECT_DIR'] || undefined;
}

/** `~/.gemini` as the CLI finds it (`GEMINI_CLI_HOME` replaces the home directory). */
export function geminiHome(env: NodeJS.ProcessEnv = process.env): string {
  return join(env['GEMINI_CLI_HOME'] || env['HOME'] || homeDir(), '.gemini');
}

/** Where every session lives (SPEC-2 §A.5): `~/.gemini/tmp`. */
export function geminiTranscriptRoot(): string {
  return testChatsDir() ?? join(geminiHome(), 'tmp');
}

/** The project root as the CLI keys it (`path.resolve` of its working directory). */
export function projectKey(repoRoot: string): string {
  return resolve(repoRoot);
}

/** SHA-256 hex of the project root: the legacy directory name and every file's `projectHash`. */
export function geminiProjectHash(repoRoot: string): string {
  return crypto().createHash('sha256').update(projectKey(repoRoot)).digest('hex');
}

/** `My Repo.v2` → `my-repo-v2` (the CLI's slugify). */
export function slugify(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '-')
      .replace(/-+/g, '-')
      .replace(/^-|-$/g, '') || 'project'
  );
}

// ------------------------------------------------------------------ the registry

export interface Registry {
  /** Absent when the file does not exist. */
  exists: boolean;
  /** The parsed file, other keys kept; null when it exists but is not a registry. */
  data: ({ projects: Record<string, unknown> } & Record<string, unknown>) | null;
}

export function registryPath(): string {
  return join(geminiHome(), 'projects.json');
}

export function readRegistry(): Registry {
  let text: string;
  try {
    text = readFileSync(registryPath(), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false, data: { projects: {} } };
    return { exists: true, data: null };
  }
  try {
    const v: unknown = JSON.parse(text);
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const projects = (v as Record<string, unknown>)['projects'];
      if (projects !== null && typeof projects === 'object' && !Array.isArray(projects)) {
        return { exists: true, data: v as Registry['data'] };
      }
    }
  } catch {
    /* not JSON */
  }
  return { exists: true, data: null };
}

/** The directories whose `<slug>/.project_root` say who owns a slug. */
export function markerBases(): string[] {
  const home = geminiHome();
  return [join(home, 'tmp'), join(home, 'history')];
}

/** The owner a slug's marker names in `base`: undefined when there is none, null when unreadable. */
function markerOwner(base: string, slug: string): string | undefined | null {
  try {
    return readFileSync(join(base, slug, PROJECT_ROOT_MARKER), 'utf8').trim();
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : null;
  }
}

/** Does no marker name another project as the slug's owner? */
function ownedOrFree(slug: string, key: string): boolean {
  return markerBases().every((b) => {
    const owner = markerOwner(b, slug);
    return owner === undefined || (owner !== null && resolve(owner) === key);
  });
}

export interface SlugChoice {
  slug: string;
  /** projects.json already maps this root to it. */
  registered: boolean;
}

/**
 * The slug the CLI uses for `repoRoot`: its registered one when the markers
 * agree, else a directory whose marker names this root, else the first free
 * one of `<slug>`, `<slug>-1`, … (taken: registered to another root, or its
 * marker names another root). Reads only.
 */
export function projectSlug(repoRoot: string, registry: Registry = readRegistry()): SlugChoice {
  const key = projectKey(repoRoot);
  const projects = registry.data?.projects ?? {};
  const mapped = projects[key];
  if (typeof mapped === 'string' && /^[a-z0-9-]+$/.test(mapped) && ownedOrFree(mapped, key)) return { slug: mapped, registered: true };
  for (const base of markerBases()) {
    let names: string[] = [];
    try {
      names = readdirSync(base);
    } catch {
      continue;
    }
    for (const n of names.sort()) {
      if (!/^[a-z0-9-]+$/.test(n)) continue;
      const owner = markerOwner(base, n);
      if (typeof owner === 'string' && resolve(owner) === key) return { slug: n, registered: false };
    }
  }
  const taken = new Set(Object.entries(projects).filter(([root]) => root !== key).map(([, s]) => s));
  const base = slugify(basename(key) || 'project');
  for (let i = 0; ; i++) {
    const candidate = i === 0 ? base : `${base}-${i}`;
    if (!taken.has(candidate) && ownedOrFree(candidate, key)) return { slug: candidate, registered: false };
  }
}

// ------------------------------------------------------------------ session files

/** Chats directories that may hold this project's sessions: the slug's, then the legacy hash one. */
export function geminiChatsDirs(repoRoot: string): string[] {
  const test = testChatsDir();
  if (test) return [test];
  const tmp = join(geminiHome(), 'tmp');
  return [join(tmp, projectSlug(repoRoot).slug, 'chats'), join(tmp, geminiProjectHash(repoRoot), 'chats')];
}

/** Names in `dir` the CLI takes for session `sid` (`session-*-<sid[0:8]>.json[l]`), sorted. */
export function sessionFileNames(dir: string, sessionId: string): string[] {
  const sid8 = sessionId.slice(0, 8);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => n.startsWith('session-') && (n.endsWith(`-${sid8}.jsonl`) || n.endsWith(`-${sid8}.json`))).sort();
}

/**
 * A session's file when no hook named it: the oldest `…-<sid8>.jsonl` (a
 * resume adds a newer stray file holding only its start-up context), else
 * the newest legacy `.json` (or our former restore name `session-<sid>.json`);
 * `''` when there is none.
 */
export function findGeminiTranscript(repoRoot: string, sessionId: string): string {
  for (const dir of geminiChatsDirs(repoRoot)) {
    const names = sessionFileNames(dir, sessionId);
    const jsonl = names.find((n) => n.endsWith('.jsonl'));
    if (jsonl) return join(dir, jsonl);
    const legacy = [...names.filter((n) => n.endsWith('.json')), `session-${sessionId}.json`].filter((n) => isFile(join(dir, n))).sort();
    const newest = legacy[legacy.length - 1];
    if (newest) return join(dir, newest);
  }
  return '';
}

function isFile(p: string): boolean {
  try {
    return lstatSync(p).isFile();
  } catch {
    return false;
  }
}

/** `2026-11-25T19:49:29.314Z` → `2026-11-25T19-49` (the CLI names files by their creation minute, UTC). */
export function fileStamp(iso: unknown, fallback: Date = new Date()): string {
  const d = typeof iso === 'string' ? new Date(iso) : fallback;
  const stamp = (Number.isNaN(d.getTime()) ? fallback : d).toISOString().slice(0, 16).replace(/:/g, '-');
  return /^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}$/.test(stamp) ? stamp : fallback.toISOString().slice(0, 16).replace(/:/g, '-');
}
