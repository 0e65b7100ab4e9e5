/**
 * Issue 25, point 1: a teammate's session id never reaches an agent's argv, or a path under the
 * agent's root, as anything but the session id. `2026-01-01---settings={…}` passes the session-id
 * check; the Go-era date prefix comes off for the agent (`--settings={…}`), and that form is
 * checked on its own (src/trust/ids.ts `agentSessionIdProblem`) by every adapter's resume and
 * restore builders and by the printed commands. Slots are crafted with git plumbing and delivered
 * through a real remote; fake agents on PATH log the argv they are given.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupAll, makeRepo, tempDir, type TempRepo } from '../helpers/repo.js';
import { AGENT_KEYS, getAgent } from '../../src/agents/registry.js';
import { agentSessionIdProblem } from '../../src/trust/ids.js';
import { agentSessionId } from '../../src/commands/restore.js';
import { branchTree, checkpointSpec, commitTree, slotMetadata, transcriptLine, type Spec } from './helpers.js';

afterAll(cleanupAll);

const UUID = '7f3c2a1e-9b8d-4c6f-a5e4-3d2c1b0a9f8e';
const ID = 'b1c2d3e4f5a6';

/** Session ids that pass the session-id check but are an option (or `.`) once the date is off. */
const ATTACKS = {
  claude: `2026-01-01---settings={"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch\${IFS}pwned"}]}]}}`,
  codex: '2026-01-01---dangerously-bypass-approvals-and-sandbox',
  gemini: '2026-01-01---yolo',
  copilot: '2026-01-01-.',
  opencode: '2026-01-01---agent=plan',
  cursor: '2026-01-01---force',
} as const;

const AGENT_NAMES: Record<keyof typeof ATTACKS, string> = {
  claude: 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
  copilot: 'Copilot CLI',
  opencode: 'OpenCode',
  cursor: 'Cursor',
};

/** The words a hostile id would put in argv (what must never reach an agent). */
const HOSTILE_WORD = /^(--settings|--dangerously|--yolo|--agent=|--force$|\.$)/;

function slot(sid: string, agent: string): Spec {
  return { 'metadata.json': slotMetadata(ID, sid, { agent }), 'full.jsonl': transcriptLine('do it'), 'prompt.txt': 'do it\n' };
}

/** A bare remote holding `feature` (one commit linking checkpoint ID) and a metadata branch with `slots`. */
function attackerRemote(slots: Spec[]): TempRepo {
  const remote = makeRepo({ bare: true });
  const a = makeRepo();
  const meta = commitTree(a, branchTree(a, { [ID]: checkpointSpec(ID, slots) }), [], 'Checkpoint: attacker\n');
  a.write('a.txt', 'x\n');
  a.git(['add', 'a.txt']);
  a.git(['commit', '-q', '--no-verify', '-m', `feature work\n\nEntire-Checkpoint: ${ID}`]);
  a.git(['push', '-q', '--no-verify', remote.dir, 'HEAD:refs/heads/feature', `${meta}:refs/heads/entire/checkpoints/v1`]);
  return remote;
}

function victimOf(remote: TempRepo): TempRepo {
  const v = makeRepo();
  v.git(['remote', 'add', 'origin', remote.dir]);
  v.git(['fetch', '-q', 'origin']);
  const en = v.entire(['enable']);
  expect(en.status, en.stderr).toBe(0);
  return v;
}

/** Fake agents on PATH: each run appends `<name> <argv as JSON>` to the log and exits 0. */
function fakeAgents(): { path: string; runs: () => { name: string; argv: string[] }[] } {
  const dir = tempDir('fake-agents-');
  const log = join(dir, 'runs.log');
  for (const name of ['claude', 'codex', 'gemini', 'copilot', 'opencode', 'cursor-agent']) {
    writeFileSync(
      join(dir, name),
      `#!/usr/bin/env node\nrequire('fs').appendFileSync(${JSON.stringify(log)}, ${JSON.stringify(name)} + ' ' + JSON.stringify(process.argv.slice(2)) + '\\n');\n`,
    );
    chmodSync(join(dir, name), 0o755);
  }
  return {
    path: `${dir}:${process.env['PATH']}`,
    runs: () =>
      existsSync(log)
        ? readFileSync(log, 'utf8')
            .trim()
            .split('\n')
            .map((l) => ({ name: l.slice(0, l.indexOf(' ')), argv: JSON.parse(l.slice(l.indexOf(' ') + 1)) as string[] }))
        : [],
  };
}

describe('the validator of the form handed to an agent (issue 25, point 1)', () => {
  it('refuses options, dot names, separators and empties; takes UUIDs, OpenCode ids and short ids', () => {
    for (const bad of ['--settings={}', '-x', '-', '.', '..', '.hidden', 'a/b', 'a\\b', 'a b', '', 'x'.repeat(129), 'ä', '_x', 'a:b']) {
      expect(agentSessionIdProblem(bad), bad).not.toBeNull();
    }
    for (const ok of [UUID, 'ses_debada643ffe4X1HvAuBtC20wH', 's1', 'a.b-c_d', 'x'.repeat(128)]) expect(agentSessionIdProblem(ok), ok).toBeNull();
  });

  it('agentSessionId takes the date off a Go-era id and checks what is left', () => {
    expect(agentSessionId(`2026-01-01-${UUID}`)).toBe(UUID);
    for (const sid of Object.values(ATTACKS)) expect(() => agentSessionId(sid), sid).toThrow(/INVALID_SESSION_ID|invalid agent session id/);
  });

  it.each(AGENT_KEYS)('%s: every resume and restore builder refuses an id that is not the agent form', async (key) => {
    const a = await getAgent(key);
    for (const bad of ['--settings={}', '-r', '.', '..']) {
      expect(() => a.resumeArgv(bad), `${key} resumeArgv ${bad}`).toThrow(/invalid agent session id/);
      if (a.execResumeArgv) {
        expect(() => a.execResumeArgv!(bad, []), `${key} execResumeArgv ${bad}`).toThrow(/invalid agent session id/);
        expect(() => a.execResumeArgv!(bad, ['-p', 'hi']), `${key} execResumeArgv ${bad}`).toThrow(/invalid agent session id/);
      }
      if (a.transcriptRoot('/x')) expect(() => a.restorePath('/x', bad), `${key} restorePath ${bad}`).toThrow(/invalid agent session id/);
      if (a.restoreSession) await expect(a.restoreSession('/x', bad, Buffer.from('{}'), async () => true)).rejects.toThrow(/invalid agent session id/);
    }
    // a valid id is never the first word after the binary's resume option only by luck: no word of the argv but the id holds it
    const argv = a.resumeArgv(UUID);
    expect(argv.filter((w) => w.includes(UUID))).toHaveLength(1);
  });

  it('Codex is given `--` before the id where its CLI takes one (codex resume -- <id>)', async () => {
    const codex = await getAgent('codex');
    expect(codex.resumeArgv(UUID)).toEqual(['codex', 'resume', '--', UUID]);
    expect(codex.execResumeArgv!(UUID, [])).toEqual(['codex', 'resume', '--', UUID]);
    // the headless form's flags follow the id, so there the checked form alone keeps it a value
    expect(codex.execResumeArgv!(UUID, ['--json', 'go'])).toEqual(['codex', 'exec', 'resume', UUID, '--json', 'go']);
  });
});

describe("a teammate's slot whose id is an option once its date is off (issue 25, point 1)", () => {
  it('resume <branch>: no command is printed or run with it; a Go-era id of the same checkpoint still resumes', () => {
    const keys = Object.keys(ATTACKS) as (keyof typeof ATTACKS)[];
    const good = `2026-01-01-${UUID}`;
    const remote = attackerRemote([...keys.map((k) => slot(ATTACKS[k], AGENT_NAMES[k])), slot(good, 'Claude Code')]);
    const v = victimOf(remote);
    const agents = fakeAgents();
    const res = v.entire(['resume', 'feature'], { env: { PATH: agents.path } });
    expect(res.status, res.stderr).toBe(0);
    const out = res.stdout + res.stderr;
    // each hostile slot is refused once, naming why
    expect(out.match(/Not restoring session 2026-01-01-.*invalid session id \(agent session id must start with a letter or digit\)/g)).toHaveLength(keys.length);
    // the only command printed is the good one's
    const commands = res.stdout.split('\n').filter((l) => l.startsWith('  '));
    expect(commands).toEqual([`  claude -r ${UUID}`]);
    expect(out).not.toMatch(/(claude -r|codex resume( --)?|gemini --resume|opencode -s|cursor-agent --resume) '?-/);
    expect(out).not.toContain('copilot --resume=.');
    expect(agents.runs()).toEqual([]);
    // `2026-01-01-.` wrote ~/.copilot/session-state/events.jsonl before; no file is written for any hostile slot
    expect(existsSync(join(v.home, '.copilot'))).toBe(false);
    const claudeFiles = readdirSync(join(v.home, '.claude', 'projects', v.dir.replace(/[^A-Za-z0-9]/g, '-')));
    expect(claudeFiles).toEqual([`${UUID}.jsonl`]);
    expect(existsSync(join(v.home, '.codex'))).toBe(false);
  });

  it.each(['claude', 'codex', 'gemini', 'copilot'] as const)('resume --session <id> --exec (%s): the agent never gets the hostile id as an option', (k) => {
    const remote = attackerRemote([slot(ATTACKS[k], AGENT_NAMES[k])]);
    const v = victimOf(remote);
    v.git(['checkout', '-q', 'feature']);
    const agents = fakeAgents();
    const res = v.entire(['resume', '--session', ATTACKS[k], '--exec', '--', '-p', 'go on'], { env: { PATH: agents.path } });
    const out = res.stdout + res.stderr;
    expect(out).toContain(`Cannot resume ${AGENT_NAMES[k]} session ${ATTACKS[k]}`);
    expect(out).not.toContain('To continue this session, run:');
    // what ran (if anything: the fallback starts a new session with the stored context) holds no word from the id
    for (const run of agents.runs()) {
      for (const w of run.argv) expect(HOSTILE_WORD.test(w), `${run.name} ${JSON.stringify(run.argv)}`).toBe(false);
      expect(run.argv).not.toContain(ATTACKS[k].slice('2026-01-01-'.length));
    }
    expect(existsSync(join(v.home, '.copilot', 'session-state', 'events.jsonl'))).toBe(false);
  });
});
