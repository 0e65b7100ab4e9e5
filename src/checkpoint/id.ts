/** SPEC §2.2: checkpoint IDs (12 lowercase hex) and their shard paths. */
import { isCheckpointId } from '../trust/ids.js';
import { EntireError } from '../errors.js';
import { randomHex } from '../random.js';

export { isCheckpointId } from '../trust/ids.js';

/** 6 crypto-random bytes as 12 hex; callers regenerate if the shard exists. */
export function generateCheckpointId(): string {
  return randomHex(6);
}

export function assertCheckpointId(id: string): void {
  if (!isCheckpointId(id)) {
    throw new EntireError('INVALID_CHECKPOINT_ID', `invalid checkpoint id "${id}" (expected 12 lowercase hex characters)`);
  }
}

/** `a1b2c3d4e5f6` → `a1/b2c3d4e5f6`. */
export function shardPath(id: string): string {
  assertCheckpointId(id);
  return `${id.slice(0, 2)}/${id.slice(2)}`;
}

/** Directory of session slot `n` inside a checkpoint. */
export function slotPath(id: string, slot: number): string {
  if (!Number.isInteger(slot) || slot < 0 || slot > 9999) {
    throw new EntireError('INVALID_SLOT', `invalid session slot ${slot} for checkpoint ${id}`);
  }
  return `${shardPath(id)}/${slot}`;
}
