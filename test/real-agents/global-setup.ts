/**
 * The tier's setup: install the agent CLIs (pinned, or the newest with
 * ENTIRE_AGENTS_LATEST=1) into the cache outside the repository, and hand
 * their paths to the test files. ENTIRE_AGENTS_ONLY=<key>[,<key>] limits the
 * agents. scripts/agents-test.mjs installs first and passes its manifest in
 * ENTIRE_AGENTS_MANIFEST, so both see the same versions.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
// @ts-expect-error -- a plain .mjs script, no type declarations
import { ensureAgentClis } from '../../scripts/agents-install.mjs';

export interface InstalledCli {
  package: string;
  pinned: string;
  version: string;
  bin: string;
  dir: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    agentClis: { mode: 'pinned' | 'latest'; agents: Record<string, InstalledCli> };
    agentsReportDir: string;
  }
}

type Manifest = { mode: 'pinned' | 'latest'; agents: Record<string, InstalledCli> };

function givenManifest(): Manifest | null {
  const f = process.env['ENTIRE_AGENTS_MANIFEST'];
  if (f === undefined || f === '') return null;
  const m = JSON.parse(readFileSync(f, 'utf8')) as Manifest;
  return Object.values(m.agents).every((a) => existsSync(a.bin)) ? m : null;
}

export default function setup(project: TestProject): () => void {
  const only = (process.env['ENTIRE_AGENTS_ONLY'] ?? '').split(',').filter((s) => s !== '');
  const manifest =
    givenManifest() ??
    (ensureAgentClis as (o: object) => Manifest)({
      latest: process.env['ENTIRE_AGENTS_LATEST'] === '1',
      only,
      log: (m: string) => process.stderr.write(`[agents-install] ${m}\n`),
    });
  project.provide('agentClis', manifest);
  const given = process.env['ENTIRE_AGENTS_REPORT_DIR'];
  // run without the wrapper: the drift reports go to a temp dir nobody reads, removed afterwards
  const reportDir = given ?? mkdtempSync(join(tmpdir(), 'entire-agents-report-'));
  project.provide('agentsReportDir', reportDir);
  return () => {
    if (given === undefined) rmSync(reportDir, { recursive: true, force: true });
  };
}
