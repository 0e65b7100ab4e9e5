/**
 * Work-tree snapshots for shadow branches: the given paths as tree changes
 * (blob ids from `git hash-object --stdin-paths`, which applies the path's
 * clean filters such as LFS, or written in-process when no attributes or
 * autocrlf can apply), to apply on top of a base tree. The user's index is never read for writing nor locked, and
 * the cost is one spawn for the changed files, whatever the repository size
 * (a temporary GIT_INDEX_FILE would read and write the whole tree: measured
 * 10 ms vs 3.4 ms on a tiny repository, growing with every tracked file).
 */
import { os } from '../builtins.js';
import { existsSync, lstatSync, readFileSync, readlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { runGit, splitZ } from './exec.js';
import type { Repo } from './repo.js';
import type { TreeChange } from './fastimport.js';
import { readConfigValue } from './config-file.js';
import { LooseWriter, canWriteLoose } from './odb.js';

/** Files bigger than this are left to `git hash-object` (it streams them). */
const MAX_IN_PROCESS_BYTES = 16 * 1024 * 1024;

/**
 * Whether git would store these paths' bytes unchanged: no attributes file
 * anywhere that could name a filter or an end-of-line conversion, and no
 * core.autocrlf. Then `hash-object -w` is just "blob <size>\0<bytes>", which
 * we write in-process (a carry-forward of a few files otherwise pays for
 * loading child_process and a git process, about 10 ms).
 */
function storedVerbatim(repo: Repo, paths: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  const crlf = readConfigValue('core', 'autocrlf', repo, env);
  if (crlf === undefined || (crlf.value !== null && !/^(false|no|off|0)$/i.test(crlf.value))) return false;
  const attrsFile = readConfigValue('core', 'attributesfile', repo, env);
  if (attrsFile === undefined || attrsFile.value !== null) return false;
  const home = env['HOME'] || os().homedir();
  const globalAttrs = join(env['XDG_CONFIG_HOME'] || join(home, '.config'), 'git', 'attributes');
  if (existsSync(globalAttrs) || existsSync(join(repo.commonDir, 'info', 'attributes'))) return false;
  if (env['GIT_ATTR_NOSYSTEM'] !== '1' && existsSync('/etc/gitattributes')) return false;
  const seen = new Set<string>();
  for (const p of paths) {
    for (let d = dirname(p); ; d = dirname(d)) {
      const dir = d === '.' ? '' : d;
      if (!seen.has(dir)) {
        seen.add(dir);
        if (existsSync(join(repo.root, dir, '.gitattributes'))) return false;
      }
      if (dir === '') break;
    }
  }
  return true;
}

export interface SnapshotOptions {
  /** Repo-relative paths to take from the work tree (missing → removed). */
  paths: string[];
  /** Paths known not to be ignored (from git status); others are checked. */
  trustedPaths?: ReadonlySet<string>;
}

/** Tree changes that make a tree hold the work tree's version of `paths`. */
export async function snapshotChanges(repo: Repo, opts: SnapshotOptions): Promise<TreeChange[]> {
  const changes: TreeChange[] = [];
  const files: { path: string; mode: '100644' | '100755' }[] = [];
  const toCheck: string[] = [];
  const candidates: { path: string; kind: 'file' | 'link' | 'gone'; mode: '100644' | '100755' }[] = [];
  for (const p of new Set(opts.paths)) {
    if (p === '' || p === '.entire' || p.startsWith('.entire/') || p.startsWith('../') || p.startsWith('/')) continue;
    let st;
    try {
      st = lstatSync(join(repo.root, p));
    } catch {
      candidates.push({ path: p, kind: 'gone', mode: '100644' });
      continue;
    }
    if (st.isDirectory()) continue; // directories and gitlinks are never stored
    const kind = st.isSymbolicLink() ? 'link' : st.isFile() ? 'file' : null;
    if (!kind) continue;
    candidates.push({ path: p, kind, mode: st.mode & 0o111 ? '100755' : '100644' });
    if (!opts.trustedPaths?.has(p)) toCheck.push(p);
  }
  let ignored = new Set<string>();
  if (toCheck.length > 0) {
    const r = await runGit(['check-ignore', '-z', '--stdin'], { cwd: repo.root, input: toCheck.join('\0') + '\0', allowFailure: true });
    if (r.code === 0) ignored = new Set(splitZ(r.stdout));
  }
  for (const c of candidates) {
    if (c.kind === 'gone') changes.push({ op: 'delete', path: c.path });
    else if (ignored.has(c.path)) continue;
    else if (c.kind === 'link') {
      try {
        changes.push({ op: 'put', path: c.path, mode: '120000', content: readlinkSync(join(repo.root, c.path)) });
      } catch {
        changes.push({ op: 'delete', path: c.path });
      }
    } else files.push({ path: c.path, mode: c.mode });
  }
  if (files.length > 0 && canWriteLoose(repo) && storedVerbatim(repo, files.map((f) => f.path))) {
    const w = new LooseWriter(repo);
    const rest: typeof files = [];
    for (const f of files) {
      let content: Buffer;
      try {
        const st = lstatSync(join(repo.root, f.path));
        if (!st.isFile() || st.size > MAX_IN_PROCESS_BYTES) {
          rest.push(f);
          continue;
        }
        content = readFileSync(join(repo.root, f.path));
      } catch {
        changes.push({ op: 'delete', path: f.path }); // vanished meanwhile
        continue;
      }
      changes.push({ op: 'put-oid', path: f.path, oid: w.write('blob', content), mode: f.mode });
    }
    files.splice(0, files.length, ...rest);
  }
  if (files.length > 0) {
    // paths may hold any byte but a newline; those are left out rather than mangled
    const safe = files.filter((f) => !f.path.includes('\n'));
    const r = await runGit(['hash-object', '-w', '--stdin-paths'], {
      cwd: repo.root,
      input: safe.map((f) => f.path).join('\n') + '\n',
      allowFailure: true,
    });
    if (r.code === 0) {
      const oids = r.stdout.toString('utf8').trim().split('\n');
      safe.forEach((f, i) => {
        const oid = oids[i];
        if (oid) changes.push({ op: 'put-oid', path: f.path, oid, mode: f.mode });
      });
    } else {
      // a file vanished mid-way: hash one by one, dropping the ones that are gone
      for (const f of safe) {
        const one = await runGit(['hash-object', '-w', '--', f.path], { cwd: repo.root, allowFailure: true });
        const oid = one.stdout.toString('utf8').trim();
        if (one.code === 0 && oid) changes.push({ op: 'put-oid', path: f.path, oid, mode: f.mode });
        else changes.push({ op: 'delete', path: f.path });
      }
    }
  }
  return changes;
}
