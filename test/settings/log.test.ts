import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EntireError } from '../../src/errors.js';
import { createLogger, LOG_ROTATE_BYTES, parseLogLevel, resolveLogLevel } from '../../src/log.js';
import { tempDir } from '../helpers/repo.js';

const lines = (file: string): Record<string, unknown>[] =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('logger', () => {
  it('writes one JSON line per call with the SPEC §9 fields, in a 0600 file, creating directories', () => {
    const dir = join(tempDir(), '.entire', 'logs');
    const log = createLogger({ logDir: dir, level: 'debug', component: 'hooks', env: {} });
    log.info('hook completed', { hook: 'stop', session_id: 's1', duration_ms: 12.6 });
    log.with({ session_id: 's2', checkpoint_id: 'abcdefabcdef' }).debug('condensed <x>');
    const file = join(dir, 'entire.log');
    const recs = lines(file);
    expect(recs).toHaveLength(2);
    expect(Object.keys(recs[0]!)).toEqual(['time', 'level', 'msg', 'component', 'hook', 'session_id', 'duration_ms']);
    expect(recs[0]).toMatchObject({ level: 'INFO', msg: 'hook completed', component: 'hooks', hook: 'stop', session_id: 's1', duration_ms: 13 });
    expect(Number.isNaN(Date.parse(recs[0]!['time'] as string))).toBe(false);
    expect(recs[1]).toMatchObject({ level: 'DEBUG', session_id: 's2', checkpoint_id: 'abcdefabcdef', msg: 'condensed <x>' });
    expect(readFileSync(file, 'utf8')).toContain('\\u003cx\\u003e');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('logs an error with its cause chain', () => {
    const dir = tempDir();
    const log = createLogger({ logDir: dir, component: 'hooks', env: {} });
    const err = new EntireError('GIT_FAILED', 'update-ref failed', { cause: new Error('cannot lock ref') });
    log.error('finalize failed', err);
    log.error('finalize failed again', { checkpoint_id: 'aaaaaaaaaaaa', error: err });
    const recs = lines(join(dir, 'entire.log'));
    expect(recs[0]!['error']).toBe('update-ref failed: cannot lock ref');
    expect(recs[1]).toMatchObject({ level: 'ERROR', checkpoint_id: 'aaaaaaaaaaaa', error: 'update-ref failed: cannot lock ref' });
  });

  it('filters by level; ENTIRE_LOG_LEVEL wins over settings', () => {
    const dir = tempDir();
    const log = createLogger({ logDir: dir, level: 'debug', component: 'c', env: { ENTIRE_LOG_LEVEL: 'Warning' } });
    log.info('dropped');
    log.debug('dropped');
    log.warn('kept');
    expect(lines(join(dir, 'entire.log')).map((r) => r['msg'])).toEqual(['kept']);
    expect(resolveLogLevel(undefined, 'ERROR')).toBe('error');
    expect(resolveLogLevel('bogus', 'bogus')).toBe('info');
    expect(parseLogLevel('WARN')).toBe('warn');
  });

  it('rotates to entire.log.1 at 5 MB', () => {
    const dir = tempDir();
    const file = join(dir, 'entire.log');
    const big = 'x'.repeat(LOG_ROTATE_BYTES) + '\n';
    writeFileSync(file, big);
    const log = createLogger({ logDir: dir, component: 'c', env: {} });
    log.info('after rotation');
    expect(readFileSync(join(dir, 'entire.log.1'), 'utf8')).toBe(big);
    expect(lines(file).map((r) => r['msg'])).toEqual(['after rotation']);
  });

  it('does not rotate below 5 MB', () => {
    const dir = tempDir();
    const file = join(dir, 'entire.log');
    writeFileSync(file, '{"msg":"old"}\n');
    createLogger({ logDir: dir, component: 'c', env: {} }).info('new');
    expect(existsSync(join(dir, 'entire.log.1'))).toBe(false);
    expect(lines(file).map((r) => r['msg'])).toEqual(['old', 'new']);
  });

  it('never throws when the log directory cannot be created', () => {
    const base = tempDir();
    writeFileSync(join(base, 'file'), 'not a dir');
    const log = createLogger({ logDir: join(base, 'file', 'logs'), component: 'c', env: {} });
    expect(() => {
      log.info('x');
      log.error('y', new Error('z'));
    }).not.toThrow();
    expect(existsSync(join(base, 'file', 'logs'))).toBe(false);
  });

  it('a logger without a directory writes nothing', () => {
    const log = createLogger({ logDir: null, component: 'c', env: {} });
    expect(log.isEnabled('error')).toBe(false);
    expect(() => log.error('x')).not.toThrow();
  });
});
