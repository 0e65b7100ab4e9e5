/**
 * Entry point of the hooks bundle (dist/hooks.cjs). Hooks run on every
 * commit and agent turn; a bundle holding only their code (no commander, no
 * commands) halves what V8 deserializes at start-up. bin/entire.cjs picks it
 * for `entire hooks …`.
 */
import { runHookCommand } from './hooks.js';

// Exit as soon as the hook is done: all its output is written synchronously
// and nothing it starts outlives it, and an explicit exit skips tearing the
// heap down piece by piece (3–7 ms measured). Hooks never fail the caller.
runHookCommand(process.argv.slice(3)).then(
  () => process.exit(0),
  () => process.exit(0),
);
