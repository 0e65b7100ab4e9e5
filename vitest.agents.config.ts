import { defineConfig } from 'vitest/config';

// The real-agent tier (SPEC-2 §G, docs/testing.md): real agent CLIs, installed
// outside the repository, driven headless against a scripted model server.
// One file per agent; an agent's scenarios run one after another inside it.
export default defineConfig({
  test: {
    include: ['test/real-agents/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts', 'test/real-agents/global-setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 240_000,
    pool: 'forks',
    // one agent per worker: two agents at a time on 2 cores
    maxWorkers: 2,
  },
});
