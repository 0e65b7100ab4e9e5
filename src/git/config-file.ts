/**
 * Reading one git config key from the config files directly (hooks read
 * `core.commentChar` on every commit; a `git config` spawn costs more than
 * the rest of the lookup). Includes, and anything else this reader does not
 * model, return undefined so the caller asks git.
 */
import { os } from '../builtins.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

type Found = { value: string | null } | undefined;

/** Parse a config value: quotes, escapes and trailing comments. */
function parseValue(raw: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '"') {
      quoted = !quoted;
      continue;
    }
    if (c === '\\' && i + 1 < raw.length) {
      const n = raw[++i]!;
      out += n === 'n' ? '\n' : n === 't' ? '\t' : n === 'b' ? '\b' : n;
      continue;
    }
    if (!quoted && (c === '#' || c === ';')) break;
    out += c;
  }
  return out.trim();
}

/** Last value of `section.key` in one file's text; null = file has includes (unknown). */
function scan(text: string, section: string, key: string): { value: string | undefined } | null {
  let current = '';
  let value: string | undefined;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    if (line.startsWith('[')) {
      const m = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]\s*(.*)$/.exec(line);
      if (!m) return null;
      current = m[1]!.toLowerCase();
      if (current === 'include' || current === 'includeif') return null;
      if (m[2] && !m[2].startsWith('#') && !m[2].startsWith(';')) return null; // key on the header line
      continue;
    }
    if (current !== section) continue;
    const eq = line.indexOf('=');
    const k = (eq < 0 ? line : line.slice(0, eq)).trim().toLowerCase();
    if (k !== key) continue;
    if (rawLine.trimEnd().endsWith('\\')) return null; // continued line
    value = eq < 0 ? 'true' : parseValue(line.slice(eq + 1));
  }
  return { value };
}

// A hook reads git's config files several times (repository discovery, the comment
// character, reflog idents, pack limits…) and never writes them: hooks turn on a
// per-process memo of their texts. Commands do not, as they may outlive a change.
let memo: Map<string, string | null> | null = null;

/** Keep each config file's text for the rest of the process (hooks only). */
export function memoizeConfigFiles(): void {
  memo ??= new Map();
}

/** A config file's text, or null if unreadable (memoized after memoizeConfigFiles). */
export function readConfigFile(path: string): string | null {
  const hit = memo?.get(path);
  if (hit !== undefined) return hit;
  let text: string | null;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    text = null;
  }
  memo?.set(path, text);
  return text;
}

/**
 * `section.key` (lowercase, e.g. `core`, `commentchar`) as git would see it
 * from the files and `-c` parameters; undefined when only git can tell.
 */
export function readConfigValue(section: string, key: string, dirs: { commonDir: string; gitDir: string }, env: NodeJS.ProcessEnv = process.env): Found {
  if (env['GIT_CONFIG_COUNT'] || env['GIT_CONFIG']) return undefined;
  const home = env['HOME'] || os().homedir();
  const files: string[] = [];
  if (env['GIT_CONFIG_NOSYSTEM'] !== '1' && env['GIT_CONFIG_NOSYSTEM'] !== 'true') files.push(env['GIT_CONFIG_SYSTEM'] || '/etc/gitconfig');
  if (env['GIT_CONFIG_GLOBAL'] !== undefined) files.push(env['GIT_CONFIG_GLOBAL']);
  else {
    files.push(join(env['XDG_CONFIG_HOME'] || join(home, '.config'), 'git', 'config'));
    files.push(join(home, '.gitconfig'));
  }
  const localPath = join(dirs.commonDir, 'config');
  files.push(localPath);
  let value: string | null = null;
  let local = '';
  for (const f of files) {
    if (f === '/dev/null' || f === '') continue;
    const text = readConfigFile(f);
    if (text === null) continue;
    if (f === localPath) local = text;
    const r = scan(text, section, key);
    if (r === null) return undefined;
    if (r.value !== undefined) value = r.value;
  }
  if (local.toLowerCase().includes('worktreeconfig') && /worktreeconfig\s*=\s*true/i.test(local)) {
    const wt = readConfigFile(join(dirs.gitDir, 'config.worktree'));
    if (wt !== null) {
      const r = scan(wt, section, key);
      if (r === null) return undefined;
      if (r.value !== undefined) value = r.value;
    }
  }
  // `git -c section.key=value` reaches hooks as GIT_CONFIG_PARAMETERS
  const params = env['GIT_CONFIG_PARAMETERS'];
  if (params) {
    const re = /'([^']*)'(?:=('(?:[^']|'\\'')*'))?/g;
    let m: RegExpExecArray | null;
    const want = `${section}.${key}`;
    while ((m = re.exec(params))) {
      const k = m[1]!;
      let v: string | undefined;
      if (m[2] !== undefined) v = m[2].slice(1, -1).replace(/'\\''/g, "'");
      else {
        const eq = k.indexOf('=');
        if (eq >= 0) {
          if (k.slice(0, eq).toLowerCase() === want) value = k.slice(eq + 1);
          continue;
        }
      }
      if (k.toLowerCase() === want) value = v ?? 'true';
    }
  }
  return { value };
}
