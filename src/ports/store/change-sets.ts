import type { ChangeSet, ChangeSetStatus } from '../../domain/booking/change-set.js';

/** Change sets: a person's holds, moves and cancellations proposed, approved and committed as one. */
export interface ChangeSetStore {
  /** Adds a proposed change set. */
  insert(set: ChangeSet): Promise<void>;
  /** The tenant's change set with this id; null when there is none in the tenant. */
  get(tenantId: string, id: string): Promise<ChangeSet | null>;
  /** Stores `next` if the set is still `expected` at version next.version - 1; false when it moved on. */
  update(next: ChangeSet, expected: ChangeSetStatus): Promise<boolean>;
}
