/**
 * Entry point of the hooks bundle (dist/hooks.cjs). Hooks run on every
 * commit and agent turn; a bundle holding only their code (no commander, no
 * commands) halves what V8 deserializes at start-up. bin/entire.cjs picks it
 * for `entire hooks …`.
 */
import { runHookCommand } from './hooks.js';

runHookCommand(process.argv.slice(3)).catch(() => {
  // runHookCommand reports its own errors; hooks never fail the caller
  process.exitCode = 0;
});
