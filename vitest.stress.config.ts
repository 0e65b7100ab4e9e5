import { defineConfig } from 'vitest/config';

// The reliability & safety stress suite (issue 6, docs/reliability.md).
// Real processes, real git, SIGKILL fault points; must finish in ≤ 4 min on 2 cores.
export default defineConfig({
  test: {
    include: ['test/stress/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts', 'test/stress/counts-setup.ts'],
    setupFiles: ['test/helpers/cleanup.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // each file spawns many git/node processes; two at a time fills two cores
    maxWorkers: 2,
  },
});
