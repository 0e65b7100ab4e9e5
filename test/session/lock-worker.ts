/**
 * Child process for the lock contention test (bundled by the test with
 * esbuild): N locked read-modify-write increments of checkpoint_count.
 * argv: <commonDir> <sid> <iterations>
 */
import { updateStateSync } from '../../src/session/store.js';
import { newSessionState } from '../../src/session/state.js';

const [commonDir, sid, iterations] = process.argv.slice(2) as [string, string, string];
const pause = new Int32Array(new SharedArrayBuffer(4));
for (let i = 0; i < Number(iterations); i++) {
  updateStateSync(
    commonDir,
    sid,
    (s) => {
      const state = s ?? newSessionState({ session_id: sid, started_at: '2025-01-01T00:00:00Z' });
      const seen = state.checkpoint_count;
      Atomics.wait(pause, 0, 0, 1); // widen the read→write window
      state.checkpoint_count = seen + 1;
      return state;
    },
    { waitMs: 60_000 },
  );
}
