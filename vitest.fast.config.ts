import { defineConfig } from 'vitest/config';

// `npm run test:fast` (SPEC-3 §F.3): the tests that need no built binary and spawn no git (nor
// any other process) — codecs, parsers, redaction, context derivation, schemas, the session
// files, pure helpers. Chosen by inspection: none imports test/e2e/helpers, makeRepo/repoAt,
// the CLI, child_process or dist/, and a run with a failing `git` first on PATH passes. A test
// that starts spawning git belongs in `npm test` only: take it off this list. Left out although
// pure: test/redact/linear.test.ts (1 MB of adversarial text per rule, ~40 s: a load test).
export default defineConfig({
  test: {
    include: [
      'test/agents/claude-transcript.test.ts',
      'test/agents/copilot-cli-subagents.test.ts',
      'test/agents/copilot-cli.test.ts',
      'test/agents/flush.test.ts',
      'test/agents/gemini-cursor-transcript.test.ts',
      'test/agents/hook-input.test.ts',
      'test/agents/model.test.ts',
      'test/agents/opencode-subagents.test.ts',
      'test/agents/plugin-boundary.test.ts',
      'test/agents/registry-paths.test.ts',
      'test/agents/settings.test.ts',
      'test/architecture/layers.test.ts',
      'test/checkpoint/chunks-source.test.ts',
      'test/checkpoint/codecs.test.ts',
      'test/checkpoint/trailers.test.ts',
      'test/commands/render-transcript.test.ts',
      'test/context/agent-events.test.ts',
      'test/context/agents-golden.test.ts',
      'test/context/fixtures.test.ts',
      'test/context/golden.test.ts',
      'test/context/incremental.test.ts',
      'test/git/checksums.test.ts',
      'test/git/config-memo.test.ts',
      'test/redact/anchored.test.ts',
      'test/redact/bench.test.ts',
      'test/redact/incremental.test.ts',
      'test/redact/json-walk.test.ts',
      'test/redact/properties.test.ts',
      'test/redact/rules.test.ts',
      'test/redact/secret-forms.test.ts',
      'test/security/transcript-lines.test.ts',
      'test/session/index.test.ts',
      'test/session/phase.test.ts',
      'test/session/prune.test.ts',
      'test/session/shape.test.ts',
      'test/session/spare-file.test.ts',
      'test/session/state-roundtrip.test.ts',
      'test/session/state.test.ts',
      'test/session/store.test.ts',
      'test/settings/log.test.ts',
      'test/settings/settings.test.ts',
      'test/strategy/first-lines.test.ts',
      'test/strategy/transcript-cache.test.ts',
      'test/sync/backoff.test.ts',
      'test/sync/extends.test.ts',
    ],
    // no globalSetup: nothing here runs the bundle
    setupFiles: ['test/helpers/cleanup.ts'],
    testTimeout: 60_000,
    pool: 'forks',
  },
});
