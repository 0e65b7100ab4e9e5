/**
 * Putting a stored session back where `gemini --resume <sid>` finds it
 * (SPEC-2 §B.8), from a clone under any directory name: the CLI lists only
 * `tmp/<slug>/chats` of the project it runs in, so the target uses this
 * root's slug, and a root the CLI has never seen is registered first, as the
 * CLI would register it. Every write goes through src/trust/confined.ts.
 */
import { lstatSync, mkdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { EntireError } from '../../errors.js';
import { confinedDir, writeFileIn } from '../../trust/confined.js';
import { isMessagesDocument } from '../kit/jsonl.js';
import { isObj } from '../kit/obj.js';
import { fileStamp, geminiHome, PROJECT_ROOT_MARKER, projectKey, projectSlug, readRegistry, registryPath, sessionFileNames } from './layout.js';

/** What names the file: the stored form (document → `.json`) and its start time. */
function storedShape(content: Buffer | undefined): { ext: '.json' | '.jsonl'; startTime: unknown } {
  if (!content || content.length === 0) return { ext: '.jsonl', startTime: undefined };
  const text = content.toString('utf8');
  if (isMessagesDocument(text)) {
    const doc = JSON.parse(text) as Record<string, unknown>;
    const first = Array.isArray(doc['messages']) ? doc['messages'][0] : undefined;
    return { ext: '.json', startTime: doc['startTime'] ?? doc['lastUpdated'] ?? (isObj(first) ? first['timestamp'] : undefined) };
  }
  const nl = text.indexOf('\n');
  try {
    const meta: unknown = JSON.parse(nl < 0 ? text : text.slice(0, nl));
    return { ext: '.jsonl', startTime: isObj(meta) ? meta['startTime'] : undefined };
  } catch {
    return { ext: '.jsonl', startTime: undefined };
  }
}

/**
 * `~/.gemini/tmp/<slug>/chats/session-<startTime UTC YYYY-MM-DDTHH-MM>-<sid8>.jsonl`
 * (`.json` for a legacy document). A file of the same form the CLI already
 * takes for this session (`session-*-<sid8>.*`, the oldest: a resume's
 * stray start-up file is newer) is the target instead, so the restore
 * compares with it (SPEC-2 §A.10) rather than adding a second copy.
 */
export function geminiRestorePath(repoRoot: string, sessionId: string, content?: Buffer): string {
  const shape = storedShape(content);
  const name = `session-${fileStamp(shape.startTime)}-${sessionId.slice(0, 8)}${shape.ext}`;
  const test = process.env['ENTIRE_TEST_GEMINI_PROJECT_DIR'];
  const chats = test || join(geminiHome(), 'tmp', projectSlug(repoRoot).slug, 'chats');
  const existing = sessionFileNames(chats, sessionId).filter((n) => n.endsWith(shape.ext));
  return join(chats, existing.length === 0 || existing.includes(name) ? name : existing[0]!);
}

/**
 * Make the target's project known to the CLI: `tmp/<slug>/.project_root`
 * names the root, and `projects.json` maps the root to the slug (an atomic
 * rewrite keeping every other entry). The CLI's lock on `projects.json` is
 * not taken: a mapping lost to a concurrent writer comes back on the CLI's
 * next start, which finds the slug through its marker.
 */
export function registerGeminiProject(repoRoot: string, target: string): void {
  if (process.env['ENTIRE_TEST_GEMINI_PROJECT_DIR']) return;
  const registry = readRegistry();
  if (!registry.data) {
    throw new EntireError('REFUSED', `${registryPath()} is not a project registry the Gemini CLI can read; not changing it`);
  }
  const { slug, registered } = projectSlug(repoRoot, registry);
  const home = geminiHome();
  const rel = relative(join(home, 'tmp', slug, 'chats'), target);
  if (rel === '' || rel.startsWith('..') || rel.includes(sep)) {
    throw new EntireError('REFUSED', `${target} is not in this project's Gemini CLI directory`);
  }
  const key = projectKey(repoRoot);
  // the home itself may be a symlink (trusted, SPEC-2 §A.4); below it, real directories only
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const slugDir = confinedDir(home, `tmp/${slug}`, { mode: 0o700 });
  if (!exists(join(slugDir, PROJECT_ROOT_MARKER))) writeFileIn(slugDir, PROJECT_ROOT_MARKER, key, 0o600);
  if (registered) return;
  const data = registry.data;
  data.projects[key] = slug;
  writeFileIn(confinedDir(home, ''), 'projects.json', JSON.stringify(data, null, 2), 0o600);
}

function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}
