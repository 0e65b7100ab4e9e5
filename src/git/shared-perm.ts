/**
 * `core.sharedRepository`, as git applies it to the files it creates
 * (setup.c git_config_perm, path.c calc_shared_perm/adjust_shared_perm): in a
 * shared repository every file and directory git creates gets the group's
 * (or everybody's) bits after creation, whatever the umask; directories also
 * get setgid, so new files inherit the group. Files written here in-process
 * (refs, reflogs, their locks and directories; merged packs) follow the same
 * rule, else another member of the group could not move the refs we wrote.
 */
import { chmodSync, lstatSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { readConfigValue } from './config-file.js';

/** 0: the umask decides. > 0: bits added (0660 group, 0664 everybody). < 0: exactly these bits (`-0640`). */
export type SharedPerm = number;

const PERM_GROUP = 0o660;
const PERM_EVERYBODY = 0o664;

/** git_parse_maybe_bool, then git_parse_int with its k/m/g suffixes: true/false, or undefined if neither. */
function gitBool(v: string): boolean | undefined {
  const l = v.toLowerCase();
  if (l === '' || l === 'false' || l === 'no' || l === 'off') return false;
  if (l === 'true' || l === 'yes' || l === 'on') return true;
  const m = /^\s*([+-]?\d+)([kmg]?)$/i.exec(v);
  return m ? Number(m[1]) !== 0 : undefined;
}

/**
 * A core.sharedRepository value as git reads it (the key alone reads as
 * `true`, which is `group`); undefined where git refuses the value.
 */
export function parseSharedRepository(value: string): SharedPerm | undefined {
  if (value === '' || value === 'umask') return 0;
  if (value === 'group') return PERM_GROUP;
  if (value === 'all' || value === 'world' || value === 'everybody') return PERM_EVERYBODY;
  // strtol(value, &end, 8) taking all of it: leading space, a sign, octal digits
  const m = /^[ \t\n\v\f\r]*([+-]?)([0-7]+)$/.exec(value);
  if (!m) {
    const b = gitBool(value);
    return b === undefined ? undefined : b ? PERM_GROUP : 0;
  }
  const i = (m[1] === '-' ? -1 : 1) * parseInt(m[2]!, 8);
  if (i === 0) return 0;
  if (i === 1) return PERM_GROUP;
  if (i === 2) return PERM_EVERYBODY;
  if ((i & 0o600) !== 0o600) return undefined; // git dies: the owner must keep read and write
  return -(i & 0o666);
}

/** This repository's setting; undefined when only git can read it. */
export function sharedPerm(repo: { commonDir: string; gitDir: string }, env: NodeJS.ProcessEnv = process.env): SharedPerm | undefined {
  const v = readConfigValue('core', 'sharedrepository', repo, env);
  if (v === undefined) return undefined;
  return v.value === null ? 0 : parseSharedRepository(v.value);
}

/** calc_shared_perm: the mode git gives a file created with `mode`. */
export function calcSharedPerm(perm: SharedPerm, mode: number): number {
  let tweak = Math.abs(perm);
  if (!(mode & 0o200)) tweak &= ~0o222;
  if (mode & 0o100) tweak |= (tweak & 0o444) >> 2; // read bits copied to execute bits
  return perm < 0 ? (mode & ~0o777) | tweak : mode | tweak;
}

/** adjust_shared_perm: give `path` (just created) the shared bits; directories also x and setgid. */
export function adjustSharedPerm(path: string, perm: SharedPerm): void {
  if (perm === 0) return;
  const st = lstatSync(path);
  const old = st.mode & 0o7777;
  let mode = calcSharedPerm(perm, old);
  if (st.isDirectory()) {
    mode |= (mode & 0o444) >> 2;
    mode |= 0o2000; // FORCE_DIR_SET_GID (S_ISGID on Linux)
  }
  if ((old ^ mode) & 0o7777) chmodSync(path, mode & 0o7777);
}

/** mkdir -p `dir`, each directory it creates adjusted as git's safe_create_leading_directories does. */
export function mkdirShared(dir: string, perm: SharedPerm): void {
  const first = mkdirSync(dir, { recursive: true });
  if (perm === 0 || first === undefined) return;
  const created: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    created.push(d);
    if (d === first || dirname(d) === d) break;
  }
  for (const d of created.reverse()) adjustSharedPerm(d, perm);
}
