import { DomainError } from '../../domain/errors.js';
import type {
  Person,
  Role,
  Tenant,
  TenantLimits,
  ToolMode,
  ToolProfile,
  WritePolicy,
} from '../../domain/identity/identity.js';
import {
  checkNewPassword,
  DEFAULT_APPROVAL_WINDOW_MINUTES,
  MAX_APPROVAL_WINDOW_MINUTES,
  MAX_CUSTOMER_RETENTION_DAYS,
  defaultTenantLimits,
  normalEmail,
  SETUP_LINK_TTL_MS,
} from '../../domain/identity/identity.js';
import { isValidTimeZone } from '../../domain/time/instant.js';
import type { Instant } from '../../domain/time/instant.js';
import type { StoreTx } from '../../ports/store/index.js';
import type { AppDeps } from '../deps.js';

const TENANT_ID = /^[a-z0-9][a-z0-9_-]{0,62}$/;

export function checkTenantId(id: string): string {
  if (!TENANT_ID.test(id))
    throw new DomainError('INVALID_ARGUMENTS', 'tenant: 1-63 of a-z, 0-9, _ and -', { field: 'tenant' });
  return id;
}

/** The tenant, created with default limits the first time it is named. */
export async function ensureTenant(deps: AppDeps, tx: StoreTx, id: string): Promise<Tenant> {
  const existing = await tx.tenants.getTenant(id);
  if (existing) return existing;
  const tenant: Tenant = {
    id: checkTenantId(id),
    name: id,
    limits: defaultTenantLimits,
    defaultWritePolicy: 'draft',
    toolProfile: 'inherit',
    toolMode: 'inherit',
    disabledTools: [],
    approvalWindowMinutes: DEFAULT_APPROVAL_WINDOW_MINUTES,
    createdAt: deps.clock.now(),
  };
  await tx.tenants.putTenant(tenant);
  return tenant;
}

export async function setTenant(
  deps: AppDeps,
  id: string,
  change: {
    name?: string;
    limits?: Partial<TenantLimits>;
    defaultWritePolicy?: WritePolicy;
    toolProfile?: ToolProfile;
    toolMode?: ToolMode;
    disabledTools?: readonly string[];
    approvalWindowMinutes?: number;
    offerAlternatives?: boolean;
    /** null: kept until erased by hand. */
    customerRetentionDays?: number | null;
  },
): Promise<Tenant> {
  const retention = change.customerRetentionDays;
  if (
    retention !== undefined &&
    retention !== null &&
    !(Number.isInteger(retention) && retention >= 1 && retention <= MAX_CUSTOMER_RETENTION_DAYS)
  )
    throw new DomainError(
      'INVALID_ARGUMENTS',
      `customerRetentionDays: a whole number of days from 1 to ${MAX_CUSTOMER_RETENTION_DAYS}, or none`,
      { field: 'customerRetentionDays' },
    );
  const window = change.approvalWindowMinutes;
  if (
    window !== undefined &&
    !(Number.isInteger(window) && window >= 1 && window <= MAX_APPROVAL_WINDOW_MINUTES)
  )
    throw new DomainError(
      'INVALID_ARGUMENTS',
      `approvalWindowMinutes: a whole number of minutes from 1 to ${MAX_APPROVAL_WINDOW_MINUTES} (24 hours)`,
      { field: 'approvalWindowMinutes' },
    );
  return deps.store.write(async (tx) => {
    await tx.serialize(`tenant:${id}`);
    const current = await ensureTenant(deps, tx, id);
    const next: Tenant = {
      ...current,
      name: change.name ?? current.name,
      limits: { ...current.limits, ...change.limits },
      defaultWritePolicy: change.defaultWritePolicy ?? current.defaultWritePolicy,
      toolProfile: change.toolProfile ?? current.toolProfile,
      toolMode: change.toolMode ?? current.toolMode,
      disabledTools: change.disabledTools ?? current.disabledTools,
      approvalWindowMinutes: window ?? current.approvalWindowMinutes,
      offerAlternatives: change.offerAlternatives ?? current.offerAlternatives ?? true,
      customerRetentionDays: retention === undefined ? (current.customerRetentionDays ?? null) : retention,
    };
    await tx.tenants.putTenant(next);
    return next;
  });
}

export interface NewPerson {
  readonly tenantId: string;
  readonly email: string;
  readonly displayName?: string;
  readonly role: Role;
}

export async function addPerson(deps: AppDeps, input: NewPerson): Promise<Person> {
  const email = normalEmail(input.email);
  return deps.store.write(async (tx) => {
    await ensureTenant(deps, tx, input.tenantId);
    return insertNewPerson(deps, tx, { ...input, email, passwordHash: null });
  });
}

/** A new person record, stored; refused when the email already has an account (in any tenant). */
async function insertNewPerson(
  deps: AppDeps,
  tx: StoreTx,
  input: NewPerson & { readonly passwordHash: string | null },
): Promise<Person> {
  const person: Person = {
    id: deps.ids.newId('usr'),
    tenantId: input.tenantId,
    email: input.email,
    displayName: (input.displayName?.trim() || input.email.split('@')[0]!).slice(0, 80),
    role: input.role,
    passwordHash: input.passwordHash,
    disabledAt: null,
    createdAt: deps.clock.now(),
  };
  if (!(await tx.people.insertPerson(person)))
    throw new DomainError('INVALID_ARGUMENTS', `email: ${input.email} already has an account`, {
      field: 'email',
    });
  return person;
}

export async function personByEmail(deps: AppDeps, email: string): Promise<Person> {
  const address = normalEmail(email);
  const person = await deps.store.read((tx) => tx.people.getPersonByEmail(address));
  if (!person) throw new DomainError('NOT_FOUND', `No person with email ${address}.`, { field: 'email' });
  return person;
}

/**
 * A one-time link to set a password: for `personId`, or (null) to create the tenant's first
 * owner. The secret is returned once; only its digest is stored.
 */
export async function newSetupLink(
  deps: AppDeps,
  tenantId: string,
  personId: string | null,
): Promise<{ secret: string; expiresAt: number }> {
  const secret = deps.credentials.newSecret('hf_setup_');
  const expiresAt = deps.clock.now() + SETUP_LINK_TTL_MS;
  await deps.store.write(async (tx) => {
    await ensureTenant(deps, tx, tenantId);
    await tx.people.insertSetupLink({
      secretHash: deps.credentials.hashSecret(secret),
      tenantId,
      personId,
      expiresAt,
    });
  });
  return { secret, expiresAt };
}

/** What a usable setup link is for: an existing person, or a new first owner of its tenant. */
export type SetupTarget =
  | { readonly kind: 'person'; readonly person: Person }
  | { readonly kind: 'first-owner'; readonly tenantId: string };

export async function setupLinkTarget(deps: AppDeps, secret: string): Promise<SetupTarget | null> {
  if (!secret.startsWith('hf_setup_') || secret.length > 100) return null;
  return deps.store.read(async (tx) => {
    const link = await tx.people.peekSetupLink(deps.credentials.hashSecret(secret), deps.clock.now());
    if (!link) return null;
    if (link.personId === null) {
      // A first-owner link is void once the tenant has anybody.
      const people = await tx.people.listPeople(link.tenantId);
      return people.length === 0 ? { kind: 'first-owner' as const, tenantId: link.tenantId } : null;
    }
    const person = await tx.people.getPerson(link.personId);
    return person && person.disabledAt === null ? { kind: 'person' as const, person } : null;
  });
}

/**
 * Spends the link and sets the password — of its person, or of a new owner (first-owner links,
 * which then need `owner`). Every earlier session of the person ends.
 */
export async function completeSetup(
  deps: AppDeps,
  secret: string,
  password: string,
  owner?: { email: string; displayName?: string },
): Promise<Person> {
  checkNewPassword(password);
  const email = owner && normalEmail(owner.email);
  const passwordHash = await deps.credentials.hashPassword(password);
  const unusable = () => new DomainError('NOT_FOUND', 'This setup link is unknown, used or expired.');
  return deps.store.write(async (tx) => {
    const link = await tx.people.spendSetupLink(deps.credentials.hashSecret(secret), deps.clock.now());
    if (!link) throw unusable();
    if (link.personId === null) {
      await tx.serialize(`tenant:${link.tenantId}`);
      if (!email) throw new DomainError('INVALID_ARGUMENTS', 'email: required', { field: 'email' });
      if ((await tx.people.listPeople(link.tenantId)).length > 0) throw unusable();
      return insertNewPerson(deps, tx, {
        tenantId: link.tenantId,
        email,
        displayName: owner?.displayName,
        role: 'owner',
        passwordHash,
      });
    }
    const person = await tx.people.getPerson(link.personId);
    if (!person || person.disabledAt !== null) throw unusable();
    const next = { ...person, passwordHash };
    await tx.people.updatePerson(next);
    await tx.sessions.deleteSessionsOf(person.id);
    return next;
  });
}

/**
 * The person as the write transaction sees them: a change made since they were looked up (a
 * role changed in the console) is kept, not overwritten with the older copy.
 */
async function current(tx: StoreTx, found: Person): Promise<Person> {
  const person = await tx.people.getPerson(found.id);
  if (!person) throw new DomainError('NOT_FOUND', 'No such person.', {});
  return person;
}

/** Disables a person: their sessions end and their tokens stop working (checked on every call). */
export async function disablePerson(deps: AppDeps, email: string): Promise<Person> {
  const found = await personByEmail(deps, email);
  return deps.store.write(async (tx) => {
    const person = await current(tx, found);
    const next = { ...person, disabledAt: person.disabledAt ?? deps.clock.now() };
    await tx.people.updatePerson(next);
    await tx.sessions.deleteSessionsOf(person.id);
    return next;
  });
}

/**
 * Clears the password and ends every session — and, unless the operator keeps them, the
 * person's agent tokens and OAuth connections: a reset is what one does when a password may
 * be known to someone else, who may have made tokens with it. One transaction: all or none.
 * Returns a fresh setup link to set a new password, and what was ended.
 */
export async function resetPassword(deps: AppDeps, email: string, options: { keepTokens?: boolean } = {}) {
  const found = await personByEmail(deps, email);
  const now = deps.clock.now();
  const { person, ended } = await deps.store.write(async (tx) => {
    const person = await current(tx, found);
    await tx.people.updatePerson({ ...person, passwordHash: null });
    await tx.sessions.deleteSessionsOf(person.id);
    if (options.keepTokens) return { person, ended: { tokens: 0, connections: 0 } };
    return { person, ended: await endAgentConnections(tx, person, now) };
  });
  return { person, ended, link: await newSetupLink(deps, person.tenantId, person.id) };
}

/**
 * Revokes every agent token and OAuth connection of the person (in the caller's transaction):
 * what a password reset or change does, since whoever knew the old password may have made them.
 */
export async function endAgentConnections(
  tx: StoreTx,
  person: Person,
  now: Instant,
): Promise<{ tokens: number; connections: number }> {
  let tokens = 0;
  for (const token of await tx.tokens.listTokens(person.tenantId))
    if (token.personId === person.id && token.revokedAt === null)
      if (await tx.tokens.revokeToken(person.tenantId, token.id, now)) tokens++;
  let connections = 0;
  for (const connection of await tx.oauth.listConnections(person.tenantId, person.id))
    if (
      connection.revokedAt === null &&
      (await tx.oauth.revokeConnection(person.tenantId, connection.grantId, now))
    ) {
      await tx.oauth.revokeGrant(connection.grantId, now);
      connections++;
    }
  return { tokens, connections };
}

/** Whether anyone can sign in to this installation yet (someone with a role holds an account). */
export async function hasPeople(deps: AppDeps, tenantId: string): Promise<boolean> {
  return deps.store.read(async (tx) => (await tx.people.listPeople(tenantId)).length > 0);
}

/** People's emails by id, for tables a person reads (ids stay in --json). */
export async function emailsById(deps: AppDeps, tenantId: string): Promise<Map<string, string>> {
  const people = await deps.store.read((tx) => tx.people.listPeople(tenantId));
  return new Map(people.map((p) => [p.id, p.email]));
}

/** A person picks the zone they read times in ('' goes back to their browser's). */
export async function setOwnTimeZone(deps: AppDeps, person: Person, zone: string): Promise<string | null> {
  const chosen = zone.trim() === '' ? null : zone.trim();
  if (chosen !== null && !isValidTimeZone(chosen))
    throw new DomainError('INVALID_ARGUMENTS', `timeZone: "${chosen.slice(0, 60)}" is not a time zone`, {
      field: 'timeZone',
    });
  await deps.store.write((tx) => tx.people.setTimeZone(person.id, chosen));
  return chosen;
}
