/** Helpers shared by the installation and sync tests (real git, the built CLI). */
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CLI, PROJECT_ROOT, tempDir, type TempRepo } from '../helpers/repo.js';

/** Absolute path of a file git resolves with `--git-path` in `cwd`. */
export function gitPath(r: TempRepo, what: string, cwd?: string): string {
  return r.git(['rev-parse', '--path-format=absolute', '--git-path', what], { cwd }).trim();
}

/** Every file under `dir` (recursive) → its bytes, for byte-for-byte comparisons. */
export function snapshotFiles(dir: string, skip: (rel: string) => boolean = () => false): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string, rel: string) => {
    if (!existsSync(d)) return;
    for (const name of readdirSync(d).sort()) {
      const abs = join(d, name);
      const r = rel ? `${rel}/${name}` : name;
      if (skip(r)) continue;
      const st = statSync(abs);
      if (st.isDirectory()) walk(abs, r);
      else out.set(r, `${(st.mode & 0o777).toString(8)}:${readFileSync(abs).toString('base64')}`);
    }
  };
  walk(dir, '');
  return out;
}

/** `refname oid` lines of every ref. */
export function refs(r: TempRepo, cwd?: string): string {
  return r.git(['for-each-ref', '--format=%(refname) %(objectname)'], { cwd });
}

/** A directory with an executable `entire` script (for PATH-only hook layouts). */
export function entireOnPath(body?: string): string {
  const bin = tempDir('entire-bin-');
  const script = body ?? `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`;
  writeFileSync(join(bin, 'entire'), script);
  chmodSync(join(bin, 'entire'), 0o755);
  return bin;
}

/** A PATH with git and sh but no `entire`. */
export function pathWithoutEntire(extra: string[] = []): string {
  return [...extra, dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':');
}

/** A private copy of the CLI (bin/, dist/, hooks/) that a test may break or delete. */
export function cliCopy(): { root: string; cli: string } {
  const root = tempDir('entire-cli-copy-');
  for (const d of ['bin', 'dist', 'hooks']) cpSync(join(PROJECT_ROOT, d), join(root, d), { recursive: true });
  cpSync(join(PROJECT_ROOT, 'package.json'), join(root, 'package.json'));
  return { root, cli: join(root, 'bin', 'entire.cjs') };
}

/** Lines of `text` that our hooks or CLI wrote. */
export function entireLines(text: string): string[] {
  return text.split('\n').filter((l) => l.includes('[entire]') || l.includes('entire'));
}

export function ensureDir(d: string): string {
  mkdirSync(d, { recursive: true });
  return d;
}
