/**
 * The log (SPEC §9): JSON lines in `<worktree>/.entire/logs/entire.log`
 * (0600, rotated to `entire.log.1` at 5 MB):
 * `{time, level, msg, component, hook?, session_id?, checkpoint_id?, duration_ms?, error?}`.
 * Never throws (I/O errors are swallowed), appends synchronously, and stats
 * the file for rotation at most once per process. Callers MUST NOT log
 * prompt text, transcript content, file contents or secrets.
 */
import { closeSync, constants, fstatSync, mkdirSync, openSync, renameSync, writeSync } from 'node:fs';
import { confinedDir, openAppendIn } from './trust/confined.js';
import { join } from 'node:path';
import { encodeJsonLine } from './go-json.js';
import { describeError } from './errors.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export const LOG_FILE_NAME = 'entire.log';
export const LOG_ROTATE_BYTES = 5 * 1024 * 1024;

const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };
/** Level names as Go's slog writes them. */
const LEVEL_NAME: Record<LogLevel, string> = { debug: 'DEBUG', info: 'INFO', warn: 'WARN', error: 'ERROR' };

export interface LogFields {
  hook?: string;
  session_id?: string;
  checkpoint_id?: string;
  duration_ms?: number;
  /** An Error (message and cause chain are logged) or a string. */
  error?: unknown;
  /** Turn end: how long the hook waited for the agent's transcript (SPEC-2 §B.4). */
  flush_wait_ms?: number;
  /** More fields of this line, written after the known ones (names never override them). */
  details?: Record<string, string | number | boolean>;
}

export interface Logger {
  readonly level: LogLevel;
  isEnabled(level: LogLevel): boolean;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields | Error): void;
  error(msg: string, fields?: LogFields | Error): void;
  /** A logger that adds these fields to every line. */
  with(fields: Omit<LogFields, 'error' | 'duration_ms' | 'flush_wait_ms' | 'details'>): Logger;
}

/** A level name (debug/info/warn/warning/error, any case), else null. */
export function parseLogLevel(value: string | undefined | null): LogLevel | null {
  switch ((value ?? '').trim().toLowerCase()) {
    case 'debug':
      return 'debug';
    case 'info':
      return 'info';
    case 'warn':
    case 'warning':
      return 'warn';
    case 'error':
      return 'error';
    default:
      return null;
  }
}

/** `ENTIRE_LOG_LEVEL` wins, then settings `log_level`, else info. */
export function resolveLogLevel(envValue: string | undefined, settingsValue: string | undefined | null): LogLevel {
  return parseLogLevel(envValue) ?? parseLogLevel(settingsValue) ?? 'info';
}

/** `<worktree>/.entire/logs` */
export function logDirFor(worktreeRoot: string): string {
  return join(worktreeRoot, '.entire', 'logs');
}

interface FileState {
  fd: number | null;
  size: number;
  failed: boolean;
}
const files = new Map<string, FileState>();

const APPEND_NOFOLLOW = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;

/**
 * The log opened for appending (0600), never through a symlink (a cloned
 * repository may plant `.entire/logs/entire.log → ~/.bashrc`). With the
 * worktree `root` known, `.entire` and `.entire/logs` must be real
 * directories (SPEC-2 §A.4); else nothing is logged.
 */
function openLog(path: string, dir: string, root: string | undefined): number {
  if (root !== undefined) return openAppendIn(confinedDir(root, '.entire/logs', { mode: 0o750 }), LOG_FILE_NAME);
  try {
    return openSync(path, APPEND_NOFOLLOW, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    mkdirSync(dir, { recursive: true, mode: 0o750 });
    return openSync(path, APPEND_NOFOLLOW, 0o600);
  }
}

// One open and one fstat per process, kept for its later lines: a hook is
// short-lived and O_APPEND keeps concurrent writers' lines whole.
function append(path: string, dir: string, root: string | undefined, line: string): void {
  let st = files.get(path);
  if (!st) {
    st = { fd: null, size: 0, failed: false };
    files.set(path, st);
  }
  if (st.failed) return;
  try {
    if (st.fd === null) {
      st.fd = openLog(path, dir, root);
      st.size = fstatSync(st.fd).size;
    }
    if (st.size >= LOG_ROTATE_BYTES) {
      closeSync(st.fd);
      st.fd = null;
      try {
        renameSync(path, `${path}.1`);
      } catch {
        /* another process rotated it already */
      }
      st.fd = openLog(path, dir, root);
      st.size = 0;
    }
    const bytes = Buffer.from(line, 'utf8');
    writeSync(st.fd, bytes);
    st.size += bytes.length;
  } catch {
    st.failed = true; // logging never throws, and stops trying after a failure
  }
}

function errorText(e: unknown): string {
  return typeof e === 'string' ? e : describeError(e);
}

function build(
  path: string | null,
  dir: string,
  root: string | undefined,
  level: LogLevel,
  component: string,
  bound: Omit<LogFields, 'error' | 'duration_ms' | 'flush_wait_ms' | 'details'>,
): Logger {
  const write = (lvl: LogLevel, msg: string, f: LogFields | Error | undefined): void => {
    if (path === null || RANK[lvl] < RANK[level]) return;
    try {
      const fields: LogFields = f instanceof Error ? { error: f } : (f ?? {});
      const rec: Record<string, unknown> = { time: new Date().toISOString(), level: LEVEL_NAME[lvl], msg, component };
      const hook = fields.hook ?? bound.hook;
      const sid = fields.session_id ?? bound.session_id;
      const cid = fields.checkpoint_id ?? bound.checkpoint_id;
      if (hook !== undefined) rec['hook'] = hook;
      if (sid !== undefined) rec['session_id'] = sid;
      if (cid !== undefined) rec['checkpoint_id'] = cid;
      if (fields.duration_ms !== undefined) rec['duration_ms'] = Math.round(fields.duration_ms);
      if (fields.error !== undefined && fields.error !== null) rec['error'] = errorText(fields.error);
      if (fields.flush_wait_ms !== undefined) rec['flush_wait_ms'] = Math.round(fields.flush_wait_ms);
      if (fields.details) for (const [k, v] of Object.entries(fields.details)) if (!(k in rec)) rec[k] = v;
      append(path, dir, root, encodeJsonLine(rec) + '\n');
    } catch {
      /* never throw from logging */
    }
  };
  return {
    level,
    isEnabled: (l) => path !== null && RANK[l] >= RANK[level],
    debug: (msg, f) => write('debug', msg, f),
    info: (msg, f) => write('info', msg, f),
    warn: (msg, f) => write('warn', msg, f),
    error: (msg, f) => write('error', msg, f),
    with: (more) => build(path, dir, root, level, component, { ...bound, ...more }),
  };
}

export interface LoggerOptions {
  /** The worktree root: the log goes to its `.entire/logs`, confined (SPEC-2 §A.4). */
  root?: string;
  /** A log directory (tests); null/undefined and no root → a logger that writes nothing. */
  logDir?: string | null;
  /** The settings `log_level`; `ENTIRE_LOG_LEVEL` overrides it; default info. */
  level?: string | null;
  component: string;
  /** Environment to read ENTIRE_LOG_LEVEL from (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export function createLogger(opts: LoggerOptions): Logger {
  const env = opts.env ?? process.env;
  const level = resolveLogLevel(env['ENTIRE_LOG_LEVEL'], opts.level);
  const dir = opts.root !== undefined ? logDirFor(opts.root) : (opts.logDir ?? '');
  const path = dir ? join(dir, LOG_FILE_NAME) : null;
  return build(path, dir, opts.root, level, opts.component, {});
}

/** A logger that writes nothing (outside a repository). */
export const nullLogger: Logger = build(null, '', undefined, 'error', '', {});
