/**
 * SPEC-2 §A.7's test of a teammate's slot for the same session, on
 * transcripts read piece by piece (SPEC-2 §A.6: the pre-push hook holds one
 * stored chunk of each side, not two whole transcripts): does `theirs`
 * strictly extend `mine` (ours is a proper prefix), and what is the SHA-256
 * of `theirs` (to check against its `content_hash.txt`)?
 */
import { crypto } from '../builtins.js';

export interface Extension {
  extends: boolean;
  /** Hex SHA-256 of all of `theirs`; only when it extends `mine`. */
  sha256?: string;
}

export async function strictExtension(mine: AsyncIterable<Buffer>, theirs: AsyncIterable<Buffer>): Promise<Extension> {
  const ours = mine[Symbol.asyncIterator]();
  let m: Buffer = Buffer.alloc(0);
  let mi = 0;
  let oursDone = false;
  let oursLen = 0;
  let theirsLen = 0;
  const h = crypto().createHash('sha256');
  for await (const t of theirs) {
    h.update(t);
    theirsLen += t.length;
    let ti = 0;
    while (ti < t.length && !oursDone) {
      if (mi === m.length) {
        const next = await ours.next();
        if (next.done) {
          oursDone = true;
          break;
        }
        m = next.value;
        mi = 0;
        oursLen += m.length;
        continue;
      }
      const n = Math.min(m.length - mi, t.length - ti);
      if (!m.subarray(mi, mi + n).equals(t.subarray(ti, ti + n))) return { extends: false };
      mi += n;
      ti += n;
    }
  }
  // all of ours must have been matched: anything left makes ours the longer one
  if (mi < m.length) return { extends: false };
  if (!oursDone) {
    for (let next = await ours.next(); !next.done; next = await ours.next()) {
      if (next.value.length > 0) return { extends: false };
    }
  }
  if (theirsLen <= oursLen) return { extends: false };
  return { extends: true, sha256: h.digest('hex') };
}
