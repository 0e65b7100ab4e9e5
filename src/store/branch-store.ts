/** The v1 branch backend (SPEC §2.3, SPEC-2 §E.1: local ∪ tracking copies), as a CheckpointBackend. */
import type { CheckpointBackend } from './checkpoint-store.js';
import { checkpointExists, listCheckpoints, readCheckpoint } from './committed.js';

export const branchStore: CheckpointBackend = {
  kind: 'git-branch',
  read: (repo, id, scope) => readCheckpoint(repo, id, scope),
  has: (repo, id) => checkpointExists(repo, id),
  list: (repo) => listCheckpoints(repo),
};
