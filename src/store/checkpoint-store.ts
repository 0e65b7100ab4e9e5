/**
 * SPEC-3 §A.2–A.4: the checkpoint store's reading side. Two backends hold
 * checkpoints in the same tree layout (one codec, `store/committed.ts`): the
 * v1 branch `entire/checkpoints/v1` under `<id[:2]>/<id[2:]>/`, and the Go
 * refs backend, one ref `refs/entire/checkpoints/<last two>/<id>` per
 * checkpoint whose root tree is the checkpoint. Readers never pick one: they
 * go through the routing store (`store/routing.ts`).
 */
import type { Repo } from '../git/repo.js';
import type { CheckpointListItem, CheckpointView, ReadScope } from './committed.js';

export type BackendKind = 'git-branch' | 'git-refs';

export interface CheckpointBackend {
  readonly kind: BackendKind;
  /** Checkpoint `id` as this backend holds it, or null. */
  read(repo: Repo, id: string, scope?: ReadScope): Promise<CheckpointView | null>;
  /** Whether this backend holds `id` (cheap: no tree is decoded; no process on the hooks' common path). */
  has(repo: Repo, id: string): Promise<boolean>;
  /** Every checkpoint it holds (root summaries). */
  list(repo: Repo): Promise<CheckpointListItem[]>;
}
