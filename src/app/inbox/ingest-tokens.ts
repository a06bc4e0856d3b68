import { DomainError } from '../../domain/errors.js';
import type { IngestToken } from '../../domain/inbox/inbox.js';
import type { AppDeps } from '../deps.js';
import { ensureTenant } from '../identity/people.js';

/** Ingest tokens carry one scope, `inbox:ingest`: they put mail in, and can neither read nor book. */
export const INGEST_PREFIX = 'hf_ing_';
export const INGEST_SCOPE = 'inbox:ingest';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Like a person's token: an ingest token lives 90 days unless told otherwise, and at most a year. */
export const INGEST_DEFAULT_DAYS = 90;
export const INGEST_MAX_DAYS = 366;

export async function createIngestToken(
  deps: AppDeps,
  tenantId: string,
  name: string,
  expiresInDays: number = INGEST_DEFAULT_DAYS,
): Promise<{ token: IngestToken; secret: string }> {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > 100)
    throw new DomainError('INVALID_ARGUMENTS', 'name: 1 to 100 characters', { field: 'name' });
  if (!Number.isInteger(expiresInDays) || expiresInDays < 1 || expiresInDays > INGEST_MAX_DAYS)
    throw new DomainError(
      'INVALID_ARGUMENTS',
      `expires: a whole number of days from 1 to ${INGEST_MAX_DAYS}`,
      {
        field: 'expires',
      },
    );
  const secret = deps.credentials.newSecret(INGEST_PREFIX);
  const now = deps.clock.now();
  const token: IngestToken = {
    id: deps.ids.newId('ing'),
    tenantId,
    name: trimmed,
    createdAt: now,
    expiresAt: now + expiresInDays * DAY_MS,
    revokedAt: null,
    lastUsedAt: null,
  };
  await deps.store.write(async (tx) => {
    await ensureTenant(deps, tx, tenantId);
    await tx.inbox.insertIngestToken(token, deps.credentials.hashSecret(secret));
  });
  return { token, secret };
}

/** The live ingest token a secret names, or null (wrong prefix, unknown, revoked, expired). */
export async function authenticateIngest(deps: AppDeps, secret: string): Promise<IngestToken | null> {
  if (!secret.startsWith(INGEST_PREFIX) || secret.length > 100) return null;
  return deps.store.write((tx) =>
    tx.inbox.useIngestToken(deps.credentials.hashSecret(secret), deps.clock.now()),
  );
}

export async function revokeIngestToken(deps: AppDeps, tenantId: string, id: string): Promise<void> {
  const revoked = await deps.store.write((tx) => tx.inbox.revokeIngestToken(tenantId, id, deps.clock.now()));
  if (!revoked) throw new DomainError('NOT_FOUND', `No live ingest token ${id} in ${tenantId}.`, {});
}

export const listIngestTokens = (deps: AppDeps, tenantId: string) =>
  deps.store.read((tx) => tx.inbox.ingestTokens(tenantId));
