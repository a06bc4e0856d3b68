import { nodeCredentials } from '../../src/adapters/ids/node-credentials.js';
import { webAuthnCeremonies } from '../../src/adapters/ids/webauthn-ceremonies.js';
import { randomIds } from '../../src/adapters/ids/random-ids.js';
import { FlexibleRateLimits } from '../../src/adapters/limits/flexible-rate-limits.js';
import { PgStore } from '../../src/adapters/storage/postgres/pg-store.js';
import { SqliteStore } from '../../src/adapters/storage/sqlite/sqlite-store.js';
import type { AppDeps } from '../../src/app/deps.js';
import { addPerson, completeSetup, newSetupLink, setTenant } from '../../src/app/identity/people.js';
import { createToken } from '../../src/app/identity/tokens.js';
import type { Role, Scope, TenantLimits, WritePolicy } from '../../src/domain/identity/identity.js';
import { NO_LIMITS, scopesOfRole } from '../../src/domain/identity/identity.js';
import type { Store } from '../../src/ports/store/index.js';

/** Limits so high that suites written before quotas never meet them; quota tests set their own. */
export const UNLIMITED: TenantLimits = NO_LIMITS;

export const PASSWORD = 'correct horse battery staple';

export interface Agent {
  readonly email: string;
  readonly personId: string;
  readonly token: string;
  readonly tokenId: string;
}

/** The identity use cases on a database, as the CLI runs them, without a process per step. */
export async function identityDeps(database: string): Promise<{ deps: AppDeps; close(): Promise<void> }> {
  const store: Store = database.startsWith('postgres')
    ? await PgStore.open(database, { create: true })
    : await SqliteStore.open(database, { create: true });
  const deps = {
    store,
    clock: { now: () => Date.now() },
    ids: randomIds,
    credentials: nodeCredentials,
    webAuthn: webAuthnCeremonies,
    rateLimits: FlexibleRateLimits.memory(),
  } as unknown as AppDeps;
  return { deps, close: () => store.close() };
}

export interface PersonSpec {
  readonly email: string;
  readonly role?: Role;
  readonly tenant?: string;
  /** Sets this password through a setup link, as the person would. */
  readonly password?: string;
  readonly scopes?: readonly Scope[];
  readonly writePolicy?: WritePolicy;
  readonly tokenTtlMs?: number;
}

/** A person with a token (and a password when asked) on an open database. */
export async function addAgent(deps: AppDeps, spec: PersonSpec): Promise<Agent> {
  const tenantId = spec.tenant ?? 'local';
  const person = await addPerson(deps, { tenantId, email: spec.email, role: spec.role ?? 'owner' });
  if (spec.password) {
    const { secret } = await newSetupLink(deps, tenantId, person.id);
    await completeSetup(deps, secret, spec.password);
  }
  const { token, secret } = await createToken(deps, {
    email: spec.email,
    name: 'test agent',
    scopes: spec.scopes ?? scopesOfRole(spec.role ?? 'owner'),
    writePolicy: spec.writePolicy ?? 'draft',
    ttlMs: spec.tokenTtlMs,
  });
  return { email: person.email, personId: person.id, token: secret, tokenId: token.id };
}

/**
 * Creates the database if needed, the tenant with `limits`, and an owner with a password and a
 * token of every scope: what a person does once with `holdfast users add` and `tokens create`.
 */
export async function provision(
  database: string,
  options: { limits?: Partial<TenantLimits>; tenant?: string; writePolicy?: WritePolicy } = {},
): Promise<Agent & { password: string }> {
  const { deps, close } = await identityDeps(database);
  try {
    const tenant = options.tenant ?? 'local';
    await setTenant(deps, tenant, { limits: { ...UNLIMITED, ...options.limits } });
    const existing = await deps.store.read((tx) => tx.people.listPeople(tenant));
    const email = `owner${existing.length || ''}@${tenant}.example`;
    const agent = await addAgent(deps, {
      email,
      tenant,
      password: PASSWORD,
      writePolicy: options.writePolicy,
    });
    return { ...agent, password: PASSWORD };
  } finally {
    await close();
  }
}
