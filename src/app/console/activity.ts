import type { Person } from '../../domain/identity/identity.js';
import { DomainError } from '../../domain/errors.js';
import type { AuditRecord } from '../../ports/audit.js';
import type { AuditChainCheck, AuditChainStatus } from '../../ports/audit-chain-status.js';
import type { AuditFilter } from '../../ports/store/audit.js';
import type { AppDeps } from '../deps.js';

export const ACTIVITY_PAGE_SIZE = 50;
/** Rows an export holds at most, newest first: the page says so, the JSON says when it was cut. */
export const ACTIVITY_EXPORT_CAP = 100_000;
const EXPORT_BATCH = 1000;

/** A record with the email of the person who acted (null when the subject is not a person of the tenant). */
export interface ActivityRow {
  readonly record: AuditRecord;
  readonly email: string | null;
}

export interface ActivityView {
  readonly rows: ActivityRow[];
  /** Cursors of the neighbouring pages (`before` for older, `after` for newer), null at either end. */
  readonly older: number | null;
  readonly newer: number | null;
  /** Everyone but an owner sees only their own entries. */
  readonly ownOnly: boolean;
  /** Whom an owner may filter by. */
  readonly people: { readonly id: string; readonly email: string }[];
}

export interface ActivityCursor {
  readonly before?: number;
  readonly after?: number;
}

/** The chain as a person may see it: its length, where it broke and its checkpoint are an owner's. */
export interface ChainView {
  readonly state: AuditChainStatus['state'];
  readonly checkedAt: number | null;
  readonly since: number;
  readonly throughAt: number | null;
  readonly detail?: Pick<AuditChainStatus, 'through' | 'broken' | 'checkpoint'>;
}

const seesWholeTenant = (person: Person) => person.role === 'owner';

interface Scope {
  /** The filter as the store runs it; null when it asks for someone else's entries and so matches nothing. */
  readonly filter: AuditFilter | null;
  readonly people: { id: string; email: string }[];
  readonly emails: ReadonlyMap<string, string>;
}

/** Owners see the tenant's trail; anyone else their own entries, a narrowing no filter can undo. */
async function scopeOf(deps: AppDeps, person: Person, filter: AuditFilter): Promise<Scope> {
  const everyone = await deps.store.read((tx) => tx.people.listPeople(person.tenantId));
  const people = everyone.map((p) => ({ id: p.id, email: p.email }));
  const emails = new Map(people.map((p) => [p.id, p.email]));
  if (seesWholeTenant(person)) {
    if (filter.subject !== undefined && !emails.has(filter.subject))
      throw new DomainError('INVALID_ARGUMENTS', 'Person: no one like that in your tenant.', {
        field: 'subject',
      });
    return { filter, people, emails };
  }
  const own = filter.subject === undefined || filter.subject === person.id;
  return { filter: own ? { ...filter, subject: person.id } : null, people: [], emails };
}

/** Whom an owner may filter by; nobody for anyone else, who sees only their own entries. */
export async function activityPeople(deps: AppDeps, person: Person): Promise<ActivityView['people']> {
  return (await scopeOf(deps, person, {})).people;
}

const rowOf = (emails: ReadonlyMap<string, string>) => (record: AuditRecord) => ({
  record,
  email: emails.get(record.subject) ?? null,
});

/** One page of the trail, newest first, with cursors to the pages beside it when there are any. */
export async function activityPage(
  deps: AppDeps,
  person: Person,
  filter: AuditFilter,
  cursor: ActivityCursor,
): Promise<ActivityView> {
  const scope = await scopeOf(deps, person, filter);
  const base = { ownOnly: !seesWholeTenant(person), people: scope.people };
  const scoped = scope.filter;
  if (scoped === null) return { ...base, rows: [], older: null, newer: null };
  const search = (page: { before?: number; after?: number; limit: number }) =>
    deps.store.read((tx) => tx.audit.search(person.tenantId, scoped, page));
  const exists = async (page: { before?: number; after?: number }) =>
    (await search({ ...page, limit: 1 })).length > 0;
  const towardsNewer = cursor.after !== undefined && cursor.before === undefined;
  // One record more than a page says whether another page lies in the direction read.
  const found = await search({ ...cursor, limit: ACTIVITY_PAGE_SIZE + 1 });
  const more = found.length > ACTIVITY_PAGE_SIZE;
  const records = towardsNewer ? found.slice(more ? 1 : 0) : found.slice(0, ACTIVITY_PAGE_SIZE);
  const newest = records[0]?.seq;
  const oldest = records.at(-1)?.seq;
  let older: number | null;
  let newer: number | null;
  if (towardsNewer) {
    newer = more ? newest! : null;
    const edge = oldest ?? cursor.after! + 1;
    older = (await exists({ before: edge })) ? edge : null;
  } else {
    older = more ? oldest! : null;
    const edge = newest ?? (cursor.before === undefined ? undefined : cursor.before - 1);
    newer = edge !== undefined && (await exists({ after: edge })) ? edge : null;
  }
  return { ...base, rows: records.map(rowOf(scope.emails)), older, newer };
}

/**
 * The rows of an export in batches, newest first, at most ACTIVITY_EXPORT_CAP; its result says
 * whether more matched. Checked (filter, visibility) before the first batch is asked for, so a
 * bad filter is refused before an answer starts.
 */
export async function activityExport(
  deps: AppDeps,
  person: Person,
  filter: AuditFilter,
): Promise<AsyncGenerator<ActivityRow[], { truncated: boolean }>> {
  const scope = await scopeOf(deps, person, filter);
  const scoped = scope.filter;
  const toRow = rowOf(scope.emails);
  return (async function* batches() {
    if (scoped === null) return { truncated: false };
    let before: number | undefined;
    let left = ACTIVITY_EXPORT_CAP;
    while (left > 0) {
      const limit = Math.min(EXPORT_BATCH, left);
      const batch = await deps.store.read((tx) =>
        tx.audit.search(person.tenantId, scoped, { before, limit }),
      );
      if (batch.length > 0) yield batch.map(toRow);
      if (batch.length < limit) return { truncated: false };
      left -= batch.length;
      before = batch.at(-1)!.seq;
    }
    const beyond = await deps.store.read((tx) =>
      tx.audit.search(person.tenantId, scoped, { before, limit: 1 }),
    );
    return { truncated: beyond.length > 0 };
  })();
}

/** Where the chain's verification stands, as this person may see it. */
export async function chainViewFor(
  chain: AuditChainCheck,
  person: Person,
  operatorTenant: string,
): Promise<ChainView> {
  const { state, checkedAt, since, throughAt, through, broken, checkpoint } = await chain.status();
  const view = { state, checkedAt, since, throughAt };
  // The chain holds the whole installation: its length grows with every tenant's calls, so its
  // length, break point and checkpoint are shown only to owners of the operator's own tenant.
  return seesWholeTenant(person) && person.tenantId === operatorTenant
    ? { ...view, detail: { through, broken, checkpoint } }
    : view;
}
