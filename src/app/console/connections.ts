import type { AccessToken, Host, Person, Role, Scope, WritePolicy } from '../../domain/identity/identity.js';
import { SCOPES, scopesOfRole, withRead } from '../../domain/identity/identity.js';
import type { OAuthConnection } from '../../domain/identity/oauth.js';
import { policiesOfRole } from '../../domain/identity/oauth.js';
import { DomainError } from '../../domain/errors.js';
import type { AppDeps } from '../deps.js';
import { listConnections, revokeConnection } from '../identity/oauth-connections.js';
import { createToken, listTokens, revokeToken } from '../identity/tokens.js';

/** What the connections page shows: an owner sees the tenant's, everyone else their own. */
export interface ConnectionsView {
  readonly tokens: AccessToken[];
  readonly oauth: OAuthConnection[];
  readonly hosts: Host[];
  /** Whose each row is, for an owner's view. */
  readonly emails: ReadonlyMap<string, string>;
  /** Each person's role: what their tokens may be changed to. */
  readonly roles: ReadonlyMap<string, Role>;
  /** What a new token starts with (the tenant's default). */
  readonly defaultWritePolicy: WritePolicy;
}

const seesAll = (person: Person) => person.role === 'owner';

export async function connectionsOf(deps: AppDeps, person: Person): Promise<ConnectionsView> {
  const mine = <T extends { personId: string }>(rows: T[]) =>
    seesAll(person) ? rows : rows.filter((r) => r.personId === person.id);
  const [tokens, oauth, hosts, people, tenant] = await Promise.all([
    listTokens(deps, person.tenantId),
    listConnections(deps, person.tenantId),
    deps.store.read((tx) => tx.hosts.listHosts(person.tenantId)),
    deps.store.read((tx) => tx.people.listPeople(person.tenantId)),
    deps.store.read((tx) => tx.tenants.getTenant(person.tenantId)),
  ]);
  return {
    tokens: mine(tokens),
    oauth: mine(oauth),
    hosts: seesAll(person) ? hosts : [],
    emails: new Map(people.map((p) => [p.id, p.email])),
    roles: new Map(people.map((p) => [p.id, p.role])),
    defaultWritePolicy: tenant?.defaultWritePolicy ?? 'draft',
  };
}

/**
 * The scopes a form ticked, refused when it names one that does not exist. `read` comes with
 * every grant (its box is shown ticked and fixed), so nothing ticked is read only.
 */
function chosenScopes(ticked: readonly string[]): Scope[] {
  const unknown = ticked.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0)
    throw new DomainError('INVALID_ARGUMENTS', `scopes: no scope ${unknown.join(', ')}`, { field: 'scopes' });
  return withRead(SCOPES.filter((s) => ticked.includes(s)));
}

/** A token the person makes for their own agent, within their role; the secret is shown once. */
export async function createOwnToken(
  deps: AppDeps,
  person: Person,
  input: { name: string; scopes: readonly string[]; writePolicy: string; days: number },
) {
  const scopes = chosenScopes(input.scopes);
  const policy = policiesOfRole(person.role).find((p) => p === input.writePolicy);
  if (!policy)
    throw new DomainError(
      'INVALID_ARGUMENTS',
      `writePolicy: a ${person.role} may choose ${policiesOfRole(person.role).join(', ')}`,
      { field: 'writePolicy' },
    );
  if (!(Number.isInteger(input.days) && input.days >= 1 && input.days <= 366))
    throw new DomainError('INVALID_ARGUMENTS', 'expires: 1 to 366 days', { field: 'expires' });
  return createToken(deps, {
    email: person.email,
    name: input.name,
    scopes: scopes as Scope[],
    writePolicy: policy as WritePolicy,
    ttlMs: input.days * 24 * 60 * 60_000,
  });
}

async function ownerOrSelf<T extends { personId: string }>(person: Person, row: T | undefined, what: string) {
  // Another person's row is as unknown as a made-up id, unless an owner asks.
  if (!row || (!seesAll(person) && row.personId !== person.id))
    throw new DomainError('NOT_FOUND', `No ${what} like that.`);
  return row;
}

export async function revokeTokenAs(deps: AppDeps, person: Person, id: string): Promise<void> {
  const token = (await listTokens(deps, person.tenantId)).find((t) => t.id === id);
  await ownerOrSelf(person, token, 'token');
  await revokeToken(deps, person.tenantId, id);
}

export async function revokeConnectionAs(deps: AppDeps, person: Person, grantId: string): Promise<void> {
  const connection = (await listConnections(deps, person.tenantId)).find((c) => c.grantId === grantId);
  await ownerOrSelf(person, connection, 'connection');
  await revokeConnection(deps, person.tenantId, grantId);
}

/** How much a policy lets an agent do without a person, least first. */
const PERMISSIVENESS: Readonly<Record<WritePolicy, number>> = {
  readonly: 0,
  draft: 1,
  attested: 2,
  direct: 3,
};

/**
 * What a token or an OAuth connection may do from now on, within its person's role (a token
 * never reaches further than its person). An OAuth connection only narrows: scopes beyond what
 * the person consented to at the app's sign-in need a new consent. Applies from the next call.
 */
export async function changeAccessAs(
  deps: AppDeps,
  editor: Person,
  kind: 'token' | 'connection',
  id: string,
  input: { scopes: readonly string[]; writePolicy: string },
): Promise<void> {
  const rows =
    kind === 'token' ? await listTokens(deps, editor.tenantId) : await listConnections(deps, editor.tenantId);
  const row = await ownerOrSelf(
    editor,
    rows.find((r) => ('grantId' in r ? r.grantId : r.id) === id),
    kind,
  );
  const holder = await deps.store.read((tx) => tx.people.getPerson(row.personId));
  if (!holder) throw new DomainError('NOT_FOUND', `No ${kind} like that.`);
  // `read` comes with every grant, also one given before that was so.
  const reachable = withRead(kind === 'token' ? scopesOfRole(holder.role) : row.scopes);
  const scopes = chosenScopes(input.scopes);
  const beyond = scopes.filter((s) => !reachable.includes(s));
  if (beyond.length > 0)
    throw new DomainError(
      'INVALID_ARGUMENTS',
      kind === 'token'
        ? `scopes: a ${holder.role}'s token cannot have ${beyond.join(', ')}`
        : `scopes: this connection was granted ${row.scopes.join(', ')}; more needs the app to ask again`,
      { field: 'scopes' },
    );
  const writePolicy = policiesOfRole(holder.role).find((p) => p === input.writePolicy);
  // A connection's policy was consented to at the app's sign-in: here it only gets stricter.
  if (kind === 'connection' && writePolicy && PERMISSIVENESS[writePolicy] > PERMISSIVENESS[row.writePolicy])
    throw new DomainError(
      'INVALID_ARGUMENTS',
      `writePolicy: this connection was granted ${row.writePolicy}; a looser policy needs the app to ask again`,
      { field: 'writePolicy' },
    );
  if (!writePolicy)
    throw new DomainError(
      'INVALID_ARGUMENTS',
      `writePolicy: a ${holder.role} may choose ${policiesOfRole(holder.role).join(', ')}`,
      { field: 'writePolicy' },
    );
  const access = { scopes, writePolicy };
  const changed = await deps.store.write((tx) =>
    kind === 'token'
      ? tx.tokens.updateTokenAccess(editor.tenantId, id, access)
      : tx.oauth.updateConnectionAccess(editor.tenantId, id, access),
  );
  if (!changed) throw new DomainError('INVALID_STATE', `This ${kind} is revoked; make a new one instead.`);
}
