import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // the stress suite and the real-agent tier have their own configs and npm scripts
    exclude: ['test/stress/**', 'test/real-agents/**', 'node_modules/**'],
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/cleanup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
