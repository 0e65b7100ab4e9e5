/**
 * SPEC §2.2, SPEC-3 §A.1–A.2: checkpoint IDs (v1's 12 lowercase hex, or a
 * ULID from the Go refs backend) and where each kind is stored.
 */
import { isCheckpointId, isHexCheckpointId } from '../trust/ids.js';
import { EntireError } from '../errors.js';
import { randomHex } from '../random.js';

export { isCheckpointId, isHexCheckpointId, isUlidCheckpointId } from '../trust/ids.js';

/** 6 crypto-random bytes as 12 hex; callers regenerate if the shard exists. */
export function generateCheckpointId(): string {
  return randomHex(6);
}

export function assertCheckpointId(id: string): void {
  if (!isCheckpointId(id)) {
    throw new EntireError('INVALID_CHECKPOINT_ID', `invalid checkpoint id "${id}" (expected 12 lowercase hex characters or a 26-character ULID)`);
  }
}

/** The v1 branch's directory of a hex id: `a1b2c3d4e5f6` → `a1/b2c3d4e5f6`. A ULID never goes there (SPEC-3 §A.5). */
export function shardPath(id: string): string {
  if (!isHexCheckpointId(id)) {
    assertCheckpointId(id);
    throw new EntireError('INVALID_CHECKPOINT_ID', `checkpoint id ${id} is a ULID: it is stored as a ref, never on entire/checkpoints/v1`);
  }
  return `${id.slice(0, 2)}/${id.slice(2)}`;
}

/** Prefix of the refs backend's refs (SPEC-3 §A.2). */
export const CHECKPOINT_REFS_PREFIX = 'refs/entire/checkpoints/';

/** `refs/entire/checkpoints/<last two characters>/<id>`, for both kinds (SPEC-3 §A.2). */
export function checkpointRef(id: string): string {
  assertCheckpointId(id);
  return `${CHECKPOINT_REFS_PREFIX}${id.slice(-2)}/${id}`;
}

/**
 * The checkpoint id a ref names, or null when the name is not a checkpoint ref
 * by shape (another ref under the prefix, a shard that is not the id's last two
 * characters, more path segments): real remotes hold other refs there.
 */
export function checkpointIdOfRef(ref: string): string | null {
  if (!ref.startsWith(CHECKPOINT_REFS_PREFIX)) return null;
  const rest = ref.slice(CHECKPOINT_REFS_PREFIX.length);
  const slash = rest.indexOf('/');
  if (slash !== 2) return null;
  const id = rest.slice(3);
  return isCheckpointId(id) && id.slice(-2) === rest.slice(0, 2) ? id : null;
}

/** Directory of session slot `n` inside a checkpoint. */
export function slotPath(id: string, slot: number): string {
  if (!Number.isInteger(slot) || slot < 0 || slot > 9999) {
    throw new EntireError('INVALID_SLOT', `invalid session slot ${slot} for checkpoint ${id}`);
  }
  return `${shardPath(id)}/${slot}`;
}
