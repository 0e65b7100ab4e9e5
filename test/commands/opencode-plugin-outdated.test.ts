/**
 * Issue 25 point 11: a repository enabled by an older Entire keeps the OpenCode
 * plugin it wrote (v1 reports no subagent tasks) until `enable` runs again;
 * `status` and `doctor` say so (`agent-hooks-outdated`), and `doctor --force`
 * rewrites it. The v1 file is the one `enable` wrote then
 * (test/fixtures/opencode-plugin/README.md).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, FIXTURES, makeRepo } from '../helpers/repo.js';
import { OPENCODE_PLUGIN_SOURCE, OPENCODE_PLUGIN_VERSION } from '../../src/agents/opencode/plugin.js';

afterAll(cleanupAll);

const V1 = readFileSync(join(FIXTURES, 'opencode-plugin', 'entire-v1.ts.txt'), 'utf8');

describe('an OpenCode plugin older than the one enable writes', () => {
  it('status and doctor report it with the fix; doctor --force rewrites it; a current one is not reported', () => {
    expect(V1.split('\n')[0]).toContain('entire-opencode-plugin v1');
    expect(OPENCODE_PLUGIN_VERSION).toBeGreaterThan(1);
    const r = makeRepo();
    expect(r.entire(['enable', '--agent', 'opencode']).status).toBe(0);
    const plugin = join(r.dir, '.opencode', 'plugins', 'entire.ts');
    // current: nothing said
    expect(r.entire(['status']).stdout).not.toContain('plugin');
    expect(JSON.parse(r.entire(['status', '--json']).stdout)).not.toHaveProperty('agent_hooks_outdated');
    expect(r.entire(['doctor']).stdout).not.toContain('agent-hooks-outdated');

    writeFileSync(plugin, V1);
    const st = r.entire(['status']);
    expect(st.status, st.stderr).toBe(0);
    expect(st.stdout).toContain(`! OpenCode's plugin .opencode/plugins/entire.ts is v1, this Entire writes v${OPENCODE_PLUGIN_VERSION}`);
    expect(st.stdout).toContain('run `entire enable --agent opencode` again');
    const json = JSON.parse(r.entire(['status', '--json']).stdout) as { agent_hooks_outdated?: { agent: string; detail: string }[] };
    expect(json.agent_hooks_outdated).toEqual([{ agent: 'opencode', detail: expect.stringContaining('is v1') }]);

    // doctor without --force reports only
    const dr = r.entire(['doctor']);
    expect(dr.stdout).toMatch(/\[found\] agent-hooks-outdated opencode: OpenCode's plugin \.opencode\/plugins\/entire\.ts is v1/);
    expect(readFileSync(plugin, 'utf8')).toBe(V1);
    const fixed = r.entire(['doctor', '--force']);
    expect(fixed.status, fixed.stderr).toBe(0);
    expect(fixed.stdout).toMatch(/\[fixed\] agent-hooks-outdated opencode: .* → \.opencode\/plugins\/entire\.ts rewritten/);
    expect(readFileSync(plugin, 'utf8')).toBe(OPENCODE_PLUGIN_SOURCE);
    expect(r.entire(['status']).stdout).not.toContain('is v1');
  });

  it('a plugin that is not ours, or none, is not reported as outdated', () => {
    const r = makeRepo();
    expect(r.entire(['enable', '--agent', 'opencode']).status).toBe(0);
    writeFileSync(join(r.dir, '.opencode', 'plugins', 'entire.ts'), '// someone else v1\n');
    expect(JSON.parse(r.entire(['status', '--json']).stdout)).not.toHaveProperty('agent_hooks_outdated');
    expect(r.entire(['doctor']).stdout).not.toContain('agent-hooks-outdated');
  });
});
