import { DomainError, invalidArgument } from '../../domain/errors.js';
import type { Person, Role, Tenant, TenantLimits } from '../../domain/identity/identity.js';
import {
  DEFAULT_APPROVAL_WINDOW_MINUTES,
  defaultTenantLimits,
  ROLES,
  WRITE_POLICIES,
} from '../../domain/identity/identity.js';
import type { StoreTx } from '../../ports/store/index.js';
import type { AppDeps } from '../deps.js';
import { addPerson, newSetupLink, setTenant } from '../identity/people.js';

/**
 * People and tenant settings in the console: owners only, their own tenant only. The tenant
 * always keeps one active owner, so nobody can lock everyone out of it from here.
 */

function requireOwner(person: Person): void {
  if (person.role !== 'owner' || person.disabledAt !== null)
    throw new DomainError('FORBIDDEN', 'Only owners manage people and tenant settings.');
}

async function colleague(tx: StoreTx, owner: Person, personId: string): Promise<Person> {
  const person = await tx.people.getPerson(personId);
  if (!person || person.tenantId !== owner.tenantId)
    throw new DomainError('NOT_FOUND', `No person ${personId}.`);
  return person;
}

const activeOwner = (p: Person) => p.role === 'owner' && p.disabledAt === null;

/** Refuses a change that would leave the tenant without an active owner. */
async function keepAnOwner(tx: StoreTx, tenantId: string, changed: Person): Promise<void> {
  const people = await tx.people.listPeople(tenantId);
  const after = people.map((p) => (p.id === changed.id ? changed : p));
  if (!after.some(activeOwner))
    throw new DomainError(
      'INVALID_STATE',
      'The tenant needs at least one active owner; make someone else owner first.',
    );
}

export interface PeopleView {
  readonly tenant: Tenant;
  readonly people: readonly Person[];
}

export async function peopleOf(deps: AppDeps, owner: Person): Promise<PeopleView> {
  requireOwner(owner);
  return deps.store.read(async (tx) => ({
    tenant: (await tx.tenants.getTenant(owner.tenantId)) ?? {
      id: owner.tenantId,
      name: owner.tenantId,
      limits: defaultTenantLimits,
      defaultWritePolicy: 'draft',
      toolProfile: 'inherit',
      toolMode: 'inherit',
      disabledTools: [],
      approvalWindowMinutes: DEFAULT_APPROVAL_WINDOW_MINUTES,
      createdAt: 0,
    },
    people: await tx.people.listPeople(owner.tenantId),
  }));
}

export function checkRole(text: unknown): Role {
  if (typeof text === 'string' && (ROLES as readonly string[]).includes(text)) return text as Role;
  throw invalidArgument('role', `must be one of ${ROLES.join(', ')}`);
}

/** A new person in the owner's tenant and their one-time link to set a password (shown once). */
export async function invitePerson(
  deps: AppDeps,
  owner: Person,
  input: { email: string; role: Role; displayName?: string },
): Promise<{ person: Person; secret: string; expiresAt: number }> {
  requireOwner(owner);
  const person = await addPerson(deps, { ...input, tenantId: owner.tenantId });
  const link = await newSetupLink(deps, owner.tenantId, person.id);
  return { person, ...link };
}

/** A fresh setup link for someone invited who has not set a password yet (the old link keeps working until it lapses). */
export async function newLinkFor(
  deps: AppDeps,
  owner: Person,
  personId: string,
): Promise<{ person: Person; secret: string; expiresAt: number }> {
  requireOwner(owner);
  const person = await deps.store.read((tx) => colleague(tx, owner, personId));
  if (person.disabledAt !== null)
    throw new DomainError('INVALID_STATE', `${person.email} is disabled; enable them first.`);
  // A link sets the password: for someone who has one, it would let the owner become them.
  if (person.passwordHash !== null)
    throw new DomainError(
      'INVALID_STATE',
      `${person.email} has set a password; a lost one is reset on the command line (holdfast users reset-password).`,
    );
  return { person, ...(await newSetupLink(deps, owner.tenantId, person.id)) };
}

/** A new role takes effect at once: tokens are capped by their person's role on every call. */
export async function changeRole(
  deps: AppDeps,
  owner: Person,
  personId: string,
  role: Role,
): Promise<Person> {
  requireOwner(owner);
  return deps.store.write(async (tx) => {
    await tx.serialize(`tenant:${owner.tenantId}`);
    const next = { ...(await colleague(tx, owner, personId)), role };
    await keepAnOwner(tx, owner.tenantId, next);
    await tx.people.updatePerson(next);
    return next;
  });
}

/** Disabling ends the person's sessions; their tokens stop working on the next call. */
export async function setDisabled(
  deps: AppDeps,
  owner: Person,
  personId: string,
  disabled: boolean,
): Promise<Person> {
  requireOwner(owner);
  return deps.store.write(async (tx) => {
    await tx.serialize(`tenant:${owner.tenantId}`);
    const person = await colleague(tx, owner, personId);
    const next = { ...person, disabledAt: disabled ? (person.disabledAt ?? deps.clock.now()) : null };
    await keepAnOwner(tx, owner.tenantId, next);
    await tx.people.updatePerson(next);
    if (disabled) await tx.sessions.deleteSessionsOf(person.id);
    return next;
  });
}

/**
 * The tenant's settings: its quotas, each a whole number from 1 to 1,000,000 (the top means no
 * limit), and the write policy new tokens and OAuth connections start with.
 */
export async function updateSettings(
  deps: AppDeps,
  owner: Person,
  settings: { limits: TenantLimits; defaultWritePolicy: string; approvalWindowMinutes?: number },
): Promise<Tenant> {
  requireOwner(owner);
  for (const [field, value] of Object.entries(settings.limits))
    if (!Number.isSafeInteger(value) || value < 1 || value > 1_000_000)
      throw invalidArgument(field, 'must be a whole number from 1 to 1000000');
  const defaultWritePolicy = WRITE_POLICIES.find((p) => p === settings.defaultWritePolicy);
  if (!defaultWritePolicy)
    throw invalidArgument('defaultWritePolicy', `must be one of ${WRITE_POLICIES.join(', ')}`);
  return setTenant(deps, owner.tenantId, {
    limits: settings.limits,
    defaultWritePolicy,
    ...(settings.approvalWindowMinutes === undefined
      ? {}
      : { approvalWindowMinutes: settings.approvalWindowMinutes }),
  });
}
