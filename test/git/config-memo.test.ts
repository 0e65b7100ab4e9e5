/**
 * Hooks read git's config files several times per process and never write
 * them, so they memoize the texts (src/git/config-file.ts); commands, which
 * may outlive a change, re-read. Its own file: the memo, once on, stays on
 * for the process.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, tempDir } from '../helpers/repo.js';
import { memoizeConfigFiles, readConfigFile, readConfigValue } from '../../src/git/config-file.js';

afterAll(cleanupAll);

describe('config file texts', () => {
  it('are re-read until a hook turns the memo on, then read once', () => {
    const d = tempDir();
    const config = join(d, 'config');
    const env = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', HOME: d };
    const dirs = { commonDir: d, gitDir: d };
    writeFileSync(config, '[core]\n\tcommentChar = @\n');
    expect(readConfigValue('core', 'commentchar', dirs, env)).toEqual({ value: '@' });
    writeFileSync(config, '[core]\n\tcommentChar = %\n');
    expect(readConfigValue('core', 'commentchar', dirs, env)).toEqual({ value: '%' });

    memoizeConfigFiles();
    expect(readConfigFile(join(d, 'missing'))).toBeNull();
    writeFileSync(join(d, 'missing'), 'now here');
    expect(readConfigFile(join(d, 'missing'))).toBeNull(); // a miss is remembered too
    expect(readConfigValue('core', 'commentchar', dirs, env)).toEqual({ value: '%' });
    writeFileSync(config, '[core]\n\tcommentChar = !\n');
    expect(readConfigValue('core', 'commentchar', dirs, env)).toEqual({ value: '%' });
  });
});
