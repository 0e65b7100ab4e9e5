/**
 * Reading objects straight from the object store: loose objects, packs and
 * alternates, plus the object names hooks use (`<oid>`, `HEAD`, `refs/…`,
 * `^{commit}`, `^{tree}`, `<rev>:<path>`). Hooks read a handful of objects;
 * doing it here spares them a `cat-file` process (and, in prepare-commit-msg,
 * loading child_process at all), which measured 10–15 ms per hook.
 *
 * Anything this reader cannot decide answers `undefined` and the caller asks
 * `git cat-file` instead: an object in no pack we know (a concurrent repack,
 * a promisor remote), a symbolic ref inside refs/, an unknown pack version,
 * a name in another syntax. `null` is a definite "does not exist".
 */
import { isLowerHex } from '../hex.js';
import { readFileSync, readdirSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { Pack, type ObjectType, type RawObject } from './pack.js';
import { resolveRef } from './discover.js';
import { inflateObject } from './inflate.js';
import { findTreeEntry } from './tree-format.js';
import { commitTree, tagTarget } from './commit-format.js';
import { readHead } from './ref-format.js';

export interface LocalObject {
  oid: string;
  type: ObjectType;
  data: Buffer;
}

export class LocalObjects {
  private readonly hexLen: number;
  private readonly format: 'sha1' | 'sha256';
  private dirs: string[] | null = null;
  private packs: Pack[] | null = null;
  /** Objects are immutable: a hook reads HEAD's commit and trees several times. */
  private readonly cache = new Map<string, LocalObject>();

  /**
   * `refs`: the git dirs to resolve ref names in (null: resolve object names
   * only, e.g. when the ref store is not the files backend).
   */
  constructor(
    private readonly objectsDir: string,
    format: 'sha1' | 'sha256',
    private readonly refs: { gitDir: string; commonDir: string } | null,
  ) {
    this.hexLen = format === 'sha256' ? 64 : 40;
    this.format = format;
  }

  close(): void {
    for (const p of this.packs ?? []) p.close();
    this.packs = null;
  }

  /** The object `name` names: an object, null (definitely none), or undefined (ask git). */
  read(name: string): LocalObject | null | undefined {
    const colon = name.indexOf(':');
    if (colon >= 0) {
      const tree = this.resolveTreeish(name.slice(0, colon));
      if (tree === null || tree === undefined) return tree;
      return this.walk(tree, name.slice(colon + 1));
    }
    let peel: 'commit' | 'tree' | null = null;
    let base = name;
    if (name.endsWith('^{commit}')) {
      peel = 'commit';
      base = name.slice(0, -9);
    } else if (name.endsWith('^{tree}')) {
      peel = 'tree';
      base = name.slice(0, -7);
    }
    const oid = this.resolveName(base);
    if (oid === null || oid === undefined) return oid;
    const obj = this.readOid(oid);
    if (!obj || peel === null) return obj;
    return this.peel(obj, peel);
  }

  private peel(obj: LocalObject, to: 'commit' | 'tree'): LocalObject | null | undefined {
    let o: LocalObject | undefined = obj;
    for (let i = 0; i < 16 && o; i++) {
      if (o.type === to) return o;
      let next: string | null;
      if (o.type === 'tag') next = tagTarget(o.data, this.format);
      else if (o.type === 'commit' && to === 'tree') next = commitTree(o.data, this.format);
      else return null; // e.g. a blob asked for as a commit: cat-file answers missing too
      if (next === null) return null; // not well formed (src/git/commit-format.ts): no tree to read
      o = this.readOid(next);
    }
    return o && o.type === to ? o : undefined;
  }

  private resolveTreeish(rev: string): string | null | undefined {
    if (rev === '') return undefined; // `:path` is an index lookup
    const o = this.read(`${rev}^{tree}`);
    return o === null || o === undefined ? o : o.oid;
  }

  private walk(treeOid: string, path: string): LocalObject | null | undefined {
    const e = this.entryIn(treeOid, path);
    if (e === null || e === undefined) return e;
    return this.readOid(e.oid);
  }

  /** The tree entry at `path` below `rev`'s tree (mode as a number), null if none, undefined if unsure. */
  entryAt(rev: string, path: string): { mode: number; oid: string } | null | undefined {
    const tree = this.resolveTreeish(rev);
    if (tree === null || tree === undefined) return tree;
    return this.entryIn(tree, path);
  }

  private entryIn(treeOid: string, path: string): { mode: number; oid: string } | null | undefined {
    let cur = { mode: 0o040000, oid: treeOid };
    const parts = path.split('/').filter((p) => p !== '');
    for (let i = 0; i < parts.length; i++) {
      if (cur.mode !== 0o040000) return null;
      const tree = this.readOid(cur.oid);
      if (!tree) return undefined;
      if (tree.type !== 'tree') return null;
      const e = findTreeEntry(tree.data, parts[i]!, this.hexLen / 2);
      if (!e) return null;
      cur = e;
    }
    return cur;
  }

  /** A full object id for `name`, null if the ref does not exist, undefined if unsure. */
  private resolveName(name: string): string | null | undefined {
    if (name.length === this.hexLen && isLowerHex(name)) return name;
    if (!this.refs || !(name === 'HEAD' || name.startsWith('refs/'))) return undefined;
    let ref = name;
    for (let depth = 0; depth < 5; depth++) {
      if (ref === 'HEAD') {
        const head = readHead(this.refs.gitDir, this.hexLen);
        if (head === null) return undefined; // missing or malformed: git decides
        if (head.oid !== undefined) return head.oid;
        ref = head.symref;
        continue;
      }
      return resolveRef(this.refs.gitDir, this.refs.commonDir, ref, this.hexLen);
    }
    return undefined;
  }

  /** The object with this id; undefined if it is in no store we know (git may still find it). */
  readOid(oid: string): LocalObject | undefined {
    const hit = this.cache.get(oid);
    if (hit) return hit;
    if (oid.length !== this.hexLen || !isLowerHex(oid)) return undefined;
    let found = this.find(oid);
    if (!found) {
      // a concurrent repack may have moved it: look at the pack list again, once
      this.close();
      found = this.find(oid);
    }
    if (found && found.data.length <= 256 * 1024) {
      if (this.cache.size >= 1024) this.cache.clear();
      this.cache.set(oid, found);
    }
    return found;
  }

  private find(oid: string): LocalObject | undefined {
    // Once every pack index is open, a pack lookup is a search in memory: do it
    // before trying a loose file (a miss there is a failed open). Before that,
    // loose first, as a fresh commit's objects are.
    if (this.packs && this.packs.every((p) => p.isOpen)) return this.findPacked(oid) ?? this.findLoose(oid);
    return this.findLoose(oid) ?? this.findPacked(oid);
  }

  private findLoose(oid: string): LocalObject | undefined {
    for (const dir of this.objectDirs()) {
      let z: Buffer;
      try {
        z = readFileSync(join(dir, oid.slice(0, 2), oid.slice(2)));
      } catch {
        continue;
      }
      return parseLoose(oid, inflateObject(z));
    }
    return undefined;
  }

  private findPacked(oid: string): LocalObject | undefined {
    const raw = Buffer.from(oid, 'hex');
    for (const pack of this.packList()) {
      try {
        const off = pack.find(raw);
        if (off < 0) continue;
        const o = pack.read(off, (b) => this.rawOf(b));
        return { oid, type: o.type, data: o.data };
      } catch (e) {
        // merged away (src/git/pack-merge.ts) or repacked since the listing: the caller looks again
        if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw e;
      }
    }
    return undefined;
  }

  private rawOf(oid: string): RawObject | null {
    return this.readOid(oid) ?? null;
  }

  private objectDirs(): string[] {
    if (this.dirs) return this.dirs;
    const dirs: string[] = [];
    const add = (d: string, depth: number): void => {
      if (dirs.includes(d) || depth > 5) return;
      dirs.push(d);
      let text = '';
      try {
        text = readFileSync(join(d, 'info', 'alternates'), 'utf8');
      } catch {
        return;
      }
      for (const line of text.split('\n')) {
        const l = line.trim();
        if (l === '' || l.startsWith('#')) continue;
        if (l.startsWith('"')) continue; // C-quoted paths: rare, left to git
        add(isAbsolute(l) ? l : resolve(d, l), depth + 1);
      }
    };
    add(this.objectsDir, 0);
    this.dirs = dirs;
    return dirs;
  }

  private packList(): Pack[] {
    if (this.packs) return this.packs;
    const packs: Pack[] = [];
    for (const dir of this.objectDirs()) {
      let names: string[];
      try {
        names = readdirSync(join(dir, 'pack'));
      } catch {
        continue;
      }
      // newest names first is not knowable without stats; order does not matter for correctness
      for (const n of names) if (n.startsWith('pack-') && n.endsWith('.idx')) packs.push(new Pack(join(dir, 'pack', n), this.hexLen / 2));
    }
    this.packs = packs;
    return packs;
  }
}

function parseLoose(oid: string, raw: Buffer): LocalObject {
  const nul = raw.indexOf(0);
  const header = raw.subarray(0, nul).toString('latin1');
  const sp = header.indexOf(' ');
  const type = header.slice(0, sp) as ObjectType;
  const size = Number(header.slice(sp + 1));
  const data = raw.subarray(nul + 1);
  if (nul < 0 || sp < 0 || data.length !== size || !['commit', 'tree', 'blob', 'tag'].includes(type)) {
    throw new Error(`corrupt loose object ${oid}`);
  }
  return { oid, type, data };
}
