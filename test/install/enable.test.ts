/**
 * `entire enable` / `disable` through the built CLI and real git
 * (SPEC §8.1, §8.2, §8.11, §9; checklist §11.1, §11.2, §11.5, §11.7, §11.42).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync, chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { makeRepo, cleanupAll, tempDir, testEnv, repoAt, type TempRepo } from '../helpers/repo.js';
import { FakeClaude } from '../helpers/agent.js';
import { gitPath, refs, snapshotFiles } from './util.js';
import { AGENT_KEYS } from '../../src/agents/registry.js';
import { PROJECT_ROOT } from '../helpers/repo.js';

const PKG_VERSION = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

afterAll(() => cleanupAll());

const HOOKS = ['prepare-commit-msg', 'commit-msg', 'post-commit', 'pre-push'];
const CLAUDE_VERBS = ['session-start', 'session-end', 'user-prompt-submit', 'stop', 'pre-task', 'post-task', 'post-todo'];

function claudeCommands(r: TempRepo): string[] {
  const s = JSON.parse(readFileSync(join(r.dir, '.claude', 'settings.json'), 'utf8')) as {
    hooks: Record<string, { matcher: string; hooks: { command: string }[] }[]>;
  };
  return Object.values(s.hooks).flatMap((groups) => groups.flatMap((g) => g.hooks.map((h) => h.command)));
}

/** Everything enable may write: hooks dir, .entire/, .claude/, and the refs. */
function installSnapshot(r: TempRepo): string {
  const hooks = snapshotFiles(gitPath(r, 'hooks'));
  const entire = snapshotFiles(join(r.dir, '.entire'));
  const claude = snapshotFiles(join(r.dir, '.claude'));
  return JSON.stringify([[...hooks], [...entire], [...claude], refs(r)]);
}

describe('enable (SPEC §8.1, §11.2)', () => {
  it('writes byte-exact settings, 4 gitignore lines, 4 marked hooks, 7 Claude commands + deny rule and an empty-tree metadata root', () => {
    const r = makeRepo();
    const res = r.entire(['enable']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain('✓ Git hooks installed in');
    expect(res.stdout).toContain('✓ Claude Code hooks installed (.claude/settings.json)');
    expect(res.stdout).toContain('✓ Project configured (.entire/settings.json)');
    expect(res.stdout.trimEnd().split('\n').pop()).toBe('Ready.');

    expect(readFileSync(join(r.dir, '.entire', 'settings.json'), 'utf8')).toBe('{\n  "strategy": "manual-commit",\n  "enabled": true\n}\n');
    const ignore = readFileSync(join(r.dir, '.entire', '.gitignore'), 'utf8').split('\n').filter((l) => l !== '');
    expect(ignore).toEqual(['tmp/', 'settings.local.json', 'metadata/', 'logs/']);

    const hooksDir = gitPath(r, 'hooks');
    for (const h of HOOKS) {
      const file = join(hooksDir, h);
      const text = readFileSync(file, 'utf8');
      expect(text.startsWith('#!/bin/sh\n'), h).toBe(true);
      expect(text.split('\n')).toContain('# Entire CLI hooks');
      expect(statSync(file).mode & 0o777, h).toBe(0o755);
    }

    const commands = claudeCommands(r);
    expect(commands.sort()).toEqual(CLAUDE_VERBS.map((v) => `entire hooks claude-code ${v}`).sort());
    const claude = JSON.parse(readFileSync(join(r.dir, '.claude', 'settings.json'), 'utf8')) as { permissions: { deny: string[] } };
    expect(claude.permissions.deny).toContain('Read(./.entire/metadata/**)');

    expect(r.git(['log', '--format=%s%x00%P', 'entire/checkpoints/v1']).trim()).toBe('Initialize sessions branch\0');
    expect(r.git(['rev-parse', 'entire/checkpoints/v1^{tree}']).trim()).toBe('4b825dc642cb6eb9a060e54bf8d69288fbee4904');
    // the empty tree object itself exists (fsck would report it missing otherwise)
    expect(r.git(['cat-file', '-t', '4b825dc642cb6eb9a060e54bf8d69288fbee4904']).trim()).toBe('tree');
  });

  it('running it twice changes nothing (hooks, settings, .claude/settings.json, refs byte for byte)', () => {
    const r = makeRepo();
    expect(r.entire(['enable']).status).toBe(0);
    const before = installSnapshot(r);
    const again = r.entire(['enable']);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('✓ Git hooks already installed in');
    expect(installSnapshot(r)).toBe(before);
    // and no backup of our own hook was made
    expect(readdirSync(gitPath(r, 'hooks')).filter((n) => n.includes('pre-entire'))).toEqual([]);
  });

  it('enable again restores a hook that lost its exec bit', () => {
    const r = makeRepo();
    expect(r.entire(['enable']).status).toBe(0);
    const file = join(gitPath(r, 'hooks'), 'post-commit');
    chmodSync(file, 0o644); // git now silently skips it
    expect(r.entire(['enable']).status).toBe(0);
    expect(statSync(file).mode & 0o777).toBe(0o755);
  });

  it('--skip-push-sessions adds strategy_options.push_sessions:false', () => {
    const r = makeRepo();
    expect(r.entire(['enable', '--skip-push-sessions']).status).toBe(0);
    const s = JSON.parse(readFileSync(join(r.dir, '.entire', 'settings.json'), 'utf8')) as Record<string, unknown>;
    expect(s).toEqual({ strategy: 'manual-commit', enabled: true, strategy_options: { push_sessions: false } });
  });
});

describe('version and bad usage (SPEC §8.10, §11.1)', () => {
  it('version prints the three lines anywhere; an unknown command exits 1', () => {
    const dir = tempDir('entire-norepo-');
    const home = tempDir('entire-home-');
    const r = repoAt(dir, home, testEnv(home));
    const v = r.entire(['version']);
    expect(v.status).toBe(0);
    const out = v.stdout.split('\n');
    expect(out[0]).toMatch(/^Entire CLI \S+ \(\S+\)$/);
    expect(out[1]).toBe(`Node version: ${process.version}`);
    expect(out[2]).toBe(`OS/Arch: ${process.platform}/${process.arch}`);
    const bogus = r.entire(['bogus']);
    expect(bogus.status).toBe(1);
    expect(bogus.stderr.split('\n')[0]).toBe("Error: Invalid usage: unknown command 'bogus'");
  });

  it('--version and -v print what `version` prints, with the package version', () => {
    const dir = tempDir('entire-norepo-');
    const home = tempDir('entire-home-');
    const r = repoAt(dir, home, testEnv(home));
    const version = r.entire(['version']).stdout;
    expect(version.split('\n')[0]).toBe(`Entire CLI ${PKG_VERSION} (${version.split('(')[1]!.split(')')[0]})`);
    for (const flag of ['--version', '-v']) {
      const res = r.entire([flag]);
      expect(res.status, flag).toBe(0);
      expect(res.stdout, flag).toBe(version);
    }
    expect(r.entire(['--help']).stdout).toContain('-v, --version');
  });
});

describe('bad input: one clear line, non-zero exit, nothing changed', () => {
  it('outside a git repository', () => {
    const dir = tempDir('entire-norepo-');
    const home = tempDir('entire-home-');
    const r = repoAt(dir, home, testEnv(home));
    const res = r.entire(['enable']);
    expect(res.status).toBe(1);
    expect(res.stderr.trim()).toBe('Not a git repository.');
    expect(readdirSync(dir)).toEqual([]);
  });

  it('an unknown agent', () => {
    const r = makeRepo();
    const before = refs(r);
    const res = r.entire(['enable', '--agent', 'bogus']);
    expect(res.status).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain(`Unknown agent "bogus" (known agents: ${AGENT_KEYS.join(', ')}).`);
    expect(existsSync(join(r.dir, '.entire'))).toBe(false);
    expect(existsSync(join(r.dir, '.claude'))).toBe(false);
    expect(readdirSync(gitPath(r, 'hooks')).filter((n) => !n.endsWith('.sample'))).toEqual([]);
    expect(refs(r)).toBe(before);
  });

  it('a settings file that is not JSON', () => {
    const r = makeRepo();
    mkdirSync(join(r.dir, '.entire'));
    writeFileSync(join(r.dir, '.entire', 'settings.json'), '{ "strategy": ');
    const before = refs(r);
    const res = r.entire(['enable']);
    expect(res.status).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/settings\.json.*not valid JSON/);
    expect(readFileSync(join(r.dir, '.entire', 'settings.json'), 'utf8')).toBe('{ "strategy": ');
    expect(existsSync(join(r.dir, '.entire', '.gitignore'))).toBe(false);
    expect(existsSync(join(r.dir, '.claude'))).toBe(false);
    expect(readdirSync(gitPath(r, 'hooks')).filter((n) => !n.endsWith('.sample'))).toEqual([]);
    expect(refs(r)).toBe(before);
  });

  it('an unknown settings key only warns once, exits 0 and is kept (§11.42)', () => {
    const r = makeRepo();
    mkdirSync(join(r.dir, '.entire'));
    writeFileSync(join(r.dir, '.entire', 'settings.json'), '{\n  "strategy": "manual-commit",\n  "colour": "blue"\n}\n');
    const res = r.entire(['enable']);
    expect(res.status, res.stderr).toBe(0);
    const warnings = res.stderr.split('\n').filter((l) => l.includes('unknown key'));
    expect(warnings).toEqual(['[entire] Warning: unknown key "colour" in .entire/settings.json (ignored)']);
    const s = JSON.parse(readFileSync(join(r.dir, '.entire', 'settings.json'), 'utf8')) as Record<string, unknown>;
    expect(s['colour']).toBe('blue');
    expect(s['enabled']).toBe(true);
  });
});

describe('disable (SPEC §8.2, §11.7, §11.42)', () => {
  it('creates settings.local.json = {"enabled": false} exactly', () => {
    const r = makeRepo();
    expect(r.entire(['enable']).status).toBe(0);
    const res = r.entire(['disable']);
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout.trim()).toBe('Entire is now disabled.');
    expect(readFileSync(join(r.dir, '.entire', 'settings.local.json'), 'utf8')).toBe('{\n  "enabled": false\n}\n');
    // hooks stay, inert
    for (const h of HOOKS) expect(readFileSync(join(gitPath(r, 'hooks'), h), 'utf8')).toContain('# Entire CLI hooks');
  });

  it('enabled:false in settings.local.json stops trailers: no trailer, no state or ref change (§11.7)', () => {
    const r = makeRepo();
    expect(r.entire(['enable']).status).toBe(0);
    const agent = new FakeClaude(r);
    agent.sessionStart();
    agent.prompt('write a.txt');
    agent.write('a.txt', 'agent work\n');
    expect(agent.stop().status).toBe(0);
    writeFileSync(join(r.dir, '.entire', 'settings.local.json'), '{\n  "enabled": false\n}\n');
    const sessions = join(r.git(['rev-parse', '--path-format=absolute', '--git-common-dir']).trim(), 'entire-sessions');
    const stateBefore = snapshotFiles(sessions, (rel) => rel.startsWith('.index'));
    const refsBefore = refs(r).split('\n').filter((l) => l.includes('refs/heads/entire/')).join('\n');
    r.git(['add', 'a.txt']);
    const c = r.gitResult(['commit', '-m', 'add a']);
    expect(c.status, c.stderr).toBe(0);
    expect(r.git(['log', '-1', '--format=%B'])).toBe('add a\n\n');
    expect(r.git(['log', '-1', '--format=%B'])).not.toContain('Entire-Checkpoint');
    expect(snapshotFiles(sessions, (rel) => rel.startsWith('.index'))).toEqual(stateBefore);
    expect(refs(r).split('\n').filter((l) => l.includes('refs/heads/entire/')).join('\n')).toBe(refsBefore);

    // enable turns it back on (clearing the disabling local value), and the next commit links again
    expect(r.entire(['enable']).status).toBe(0);
    expect(JSON.parse(readFileSync(join(r.dir, '.entire', 'settings.local.json'), 'utf8'))).toEqual({ enabled: true });
  });

  it('enable, disable --uninstall, enable again leaves every foreign hook intact (§11.5)', () => {
    const remote = makeRepo({ bare: true });
    const r = makeRepo();
    r.git(['remote', 'add', 'origin', remote.dir]);
    const hooksDir = gitPath(r, 'hooks');
    const marker = join(r.dir, '..', 'pre-push-ran');
    const foreign = `#!/bin/sh\n# team pre-push\ncat > "${marker}"\necho "args: $*" >> "${marker}"\nexit 0\n`;
    const oldBackup = '#!/bin/sh\n# an older backup someone left\nexit 0\n';
    const foreignCommitMsg = '#!/bin/sh\n# team commit-msg\nexit 0\n';
    writeFileSync(join(hooksDir, 'pre-push'), foreign);
    chmodSync(join(hooksDir, 'pre-push'), 0o755);
    writeFileSync(join(hooksDir, 'pre-push.pre-entire'), oldBackup);
    chmodSync(join(hooksDir, 'pre-push.pre-entire'), 0o755);
    writeFileSync(join(hooksDir, 'commit-msg'), foreignCommitMsg);
    chmodSync(join(hooksDir, 'commit-msg'), 0o755);

    const contents = () =>
      readdirSync(hooksDir)
        .filter((n) => !n.endsWith('.sample'))
        .map((n) => readFileSync(join(hooksDir, n), 'utf8'));

    const first = r.entire(['enable']);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toContain('[entire] Backed up existing pre-push to pre-push.pre-entire');
    expect(contents()).toContain(foreign);
    expect(contents()).toContain(oldBackup);
    expect(contents()).toContain(foreignCommitMsg);

    const un = r.entire(['disable', '--uninstall', '--force']);
    expect(un.status, un.stderr).toBe(0);
    expect(un.stdout.trim()).toBe('Entire CLI uninstalled successfully.');
    expect(readFileSync(join(hooksDir, 'pre-push'), 'utf8')).toBe(foreign);
    expect(readFileSync(join(hooksDir, 'commit-msg'), 'utf8')).toBe(foreignCommitMsg);
    expect(contents()).toContain(oldBackup);
    // the metadata branch stays
    expect(r.git(['rev-parse', '--verify', '-q', 'refs/heads/entire/checkpoints/v1']).trim()).toMatch(/^[0-9a-f]{40}$/);

    const second = r.entire(['enable']);
    expect(second.status, second.stderr).toBe(0);
    expect(contents()).toContain(foreign);
    expect(contents()).toContain(oldBackup);
    expect(contents()).toContain(foreignCommitMsg);
    for (const h of HOOKS) expect(readFileSync(join(hooksDir, h), 'utf8')).toContain('# Entire CLI hooks');

    // the foreign pre-push still runs, with git's arguments and the ref list on stdin
    const push = r.gitResult(['push', 'origin', 'main']);
    expect(push.status, push.stderr).toBe(0);
    const head = r.git(['rev-parse', 'HEAD']).trim();
    const ran = readFileSync(marker, 'utf8');
    expect(ran).toContain(`refs/heads/main ${head} refs/heads/main `);
    expect(ran).toContain(`args: origin ${remote.dir}`);
  });

  it('--uninstall leaves nothing of ours in any worktree; committed .entire files and the metadata branch stay', () => {
    const r = makeRepo();
    const wt = join(tempDir('entire-wt-'), 'wt');
    r.git(['worktree', 'add', '-q', '-b', 'side', wt]);
    const config = r.git(['config', '--list', '--local']);
    expect(r.entire(['enable']).status).toBe(0);
    r.git(['add', '.entire', '.claude']);
    r.git(['commit', '-q', '-m', 'enable entire']);
    r.git(['merge', '-q', 'main'], { cwd: wt });
    // a checkpoint, a session still going with a shadow branch, and a session in the other worktree
    const a = new FakeClaude(r);
    a.sessionStart();
    a.prompt('write a.txt');
    a.write('a.txt', 'a\n');
    expect(a.stop().status).toBe(0);
    r.git(['add', 'a.txt']);
    r.git(['commit', '-q', '-m', 'agent work']);
    a.prompt('write b.txt');
    a.write('b.txt', 'b\n');
    expect(a.stop().status).toBe(0);
    const b = new FakeClaude(r, undefined, { cwd: wt });
    b.sessionStart();
    b.prompt('write c.txt');
    b.write('c.txt', 'c\n');
    expect(b.stop().status).toBe(0);
    const common = r.git(['rev-parse', '--path-format=absolute', '--git-common-dir']).trim();
    const gitDirs = [common, ...readdirSync(join(common, 'worktrees')).map((id) => join(common, 'worktrees', id))];
    const intents = () => gitDirs.flatMap((d) => readdirSync(d).filter((n) => n.startsWith('entire-commit-intent')));
    const entireRefs = () => refs(r).split('\n').filter((l) => l.includes('refs/heads/entire/')).map((l) => l.split(' ')[0]);
    // there was something to remove
    expect(existsSync(join(common, 'entire-sessions', '.index'))).toBe(true);
    expect(intents().length).toBeGreaterThan(0);
    expect(entireRefs().length).toBeGreaterThan(1);
    expect(existsSync(join(wt, '.entire', 'tmp'))).toBe(true);

    const un = r.entire(['disable', '--uninstall', '--force']);
    expect(un.status, un.stderr).toBe(0);
    expect(readdirSync(gitPath(r, 'hooks')).filter((n) => !n.endsWith('.sample'))).toEqual([]);
    expect(existsSync(join(common, 'entire-sessions'))).toBe(false);
    expect(intents()).toEqual([]);
    expect(entireRefs()).toEqual(['refs/heads/entire/checkpoints/v1']);
    for (const root of [r.dir, wt]) expect(readdirSync(join(root, '.entire')).sort(), root).toEqual(['.gitignore', 'settings.json']);
    expect(JSON.stringify(JSON.parse(readFileSync(join(r.dir, '.claude', 'settings.json'), 'utf8')))).not.toContain('entire');
    expect(r.git(['config', '--list', '--local'])).toBe(config);
  });

  it('--uninstall right after enable, nothing committed: no .entire left at all', () => {
    const r = makeRepo();
    expect(r.entire(['enable']).status).toBe(0);
    expect(r.entire(['disable', '--uninstall', '--force']).status).toBe(0);
    expect(existsSync(join(r.dir, '.entire'))).toBe(false);
    expect(readdirSync(gitPath(r, 'hooks')).filter((n) => !n.endsWith('.sample'))).toEqual([]);
    expect(r.git(['for-each-ref', '--format=%(refname)', 'refs/heads/entire/']).trim()).toBe('refs/heads/entire/checkpoints/v1');
  });

  it('disable --uninstall without --force and without a terminal refuses and changes nothing', () => {
    const r = makeRepo();
    expect(r.entire(['enable']).status).toBe(0);
    const before = installSnapshot(r);
    const res = r.entire(['disable', '--uninstall']);
    expect(res.status).toBe(1);
    expect(res.stderr.trim()).toBe('Error: disable --uninstall requires --force when not interactive');
    expect(installSnapshot(r)).toBe(before);
  });
});
