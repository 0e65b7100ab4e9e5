/**
 * Issue 3 "done when": a full checkpoint (shadow step and committed
 * checkpoint) written from the claude-secrets transcript leaves no planted
 * secret in any git object (reachable or not) nor in any file under .entire/.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { appendFileSync, readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { FIXTURES, cleanupAll } from '../helpers/repo.js';
import { world, commit, checkpointIds, shadowBranches } from '../e2e/helpers.js';

afterAll(cleanupAll);

const SECRETS = [
  'AKIAFAKE2TESTKEY7ZQX',
  'fAkE9sEcReT/tEsTkEy+Q2mZ7vR1bN8kL3pJ5wX4yD6h',
  'ghp_FaKe7T0kEnF0rTeStS9xQ2mZ7vR1bN8kL3pJ',
  'FakePw-hK9vQ2mZ7xR4tB8nW3yL6pJ5sD1',
  'BEGIN OPENSSH PRIVATE KEY',
  'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ',
];

function filesUnder(d: string, out: string[] = []): string[] {
  if (!existsSync(d)) return out;
  for (const f of readdirSync(d)) {
    const p = join(d, f);
    if (statSync(p).isDirectory()) filesUnder(p, out);
    else out.push(p);
  }
  return out;
}

describe('no planted secret reaches git or .entire/ (P5, §11.11)', () => {
  it('committed checkpoint, a later shadow step, every object in the repository', () => {
    const { r, agent } = world();
    const fixture = readFileSync(join(FIXTURES, 'transcripts', 'claude-secrets.jsonl'), 'utf8').split('\n');
    const prompt = (JSON.parse(fixture[1]!) as { message: { content: string } }).message.content;

    // turn 1: the secret prompt, the fixture's tool traffic, a file write, stop; then a commit
    expect(agent.prompt(prompt).status).toBe(0);
    appendFileSync(agent.transcriptPath, fixture.slice(2).filter((l) => l !== '').join('\n') + '\n');
    agent.write('deploy.txt', 'deploy config\n');
    expect(agent.stop().status).toBe(0);
    r.git(['add', 'deploy.txt']);
    const c = commit(r, ['-m', 'deploy config'], { tty: true });
    expect(c.status, c.stderr).toBe(0);
    expect(checkpointIds(r)).toHaveLength(1);

    // turn 2: more secrets, left on a shadow branch
    expect(agent.prompt(`one more: ${SECRETS[2]} and ${SECRETS[0]}`).status).toBe(0);
    agent.bash(`echo ${SECRETS[3]}`, `DATABASE_URL=postgres://app:${SECRETS[3]}@db:5432/acme`);
    agent.write('later.txt', 'later\n');
    expect(agent.stop().status).toBe(0);
    expect(shadowBranches(r).length).toBeGreaterThan(0);

    const objects = execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], { cwd: r.dir, env: r.env, maxBuffer: 256 << 20 });
    expect(objects.length).toBeGreaterThan(0);
    const all = objects.toString('latin1');
    for (const s of SECRETS) expect(all.includes(s), `object store contains ${s}`).toBe(false);
    // packed objects are compressed: repack loose-only is not needed because --batch prints contents

    for (const f of filesUnder(join(r.dir, '.entire'))) {
      const content = readFileSync(f, 'latin1');
      for (const s of SECRETS) expect(content.includes(s), `${f} contains ${s}`).toBe(false);
    }
  });
});
