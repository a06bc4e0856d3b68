import { addHost, listHosts, revokeHost } from '../../../app/identity/hosts.js';
import {
  addPerson,
  checkTenantId,
  disablePerson,
  emailsById,
  newSetupLink,
  personByEmail,
  resetPassword,
  setTenant,
} from '../../../app/identity/people.js';
import { createToken, listTokens, revokeToken } from '../../../app/identity/tokens.js';
import { relative, table } from '../../../adapters/format/index.js';
import type {
  Person,
  Role,
  TenantLimits,
  ToolMode,
  ToolProfile,
  WritePolicy,
} from '../../../domain/identity/identity.js';
import {
  MAX_APPROVAL_WINDOW_MINUTES,
  MAX_CUSTOMER_RETENTION_DAYS,
  parseScopes,
  ROLES,
  TOOL_MODES,
  TOOL_PROFILES,
  WRITE_POLICIES,
} from '../../../domain/identity/identity.js';
import { formatInstant } from '../../../domain/time/instant.js';
import type { Runtime } from '../../runtime/compose.js';
import { setupUrl } from '../../runtime/first-owner.js';
import type { ServerConfig } from '../../config/config.js';
import { UsageError } from '../../config/usage-error.js';

type Print = (text: string) => void;

const iso = (t: number | null) => (t === null ? null : formatInstant(t));

function whole(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1)
    throw new UsageError(`--${flag} must be a whole number from 1 to 999999999, got "${value}"`);
  return Number(value);
}

function limitsOf(config: ServerConfig): Partial<TenantLimits> {
  const o = config.options;
  const limits: Partial<Record<keyof TenantLimits, number | undefined>> = {
    callsPerMinute: whole(o.callsPerMinute, 'calls-per-minute'),
    activeHoldsPerPerson: whole(o.maxActiveHolds, 'max-active-holds'),
    activeHoldsPerConnection: whole(o.maxHoldsPerConnection, 'max-holds-per-connection'),
    openApprovalsPerPerson: whole(o.maxOpenApprovalsPerPerson, 'max-open-approvals-per-person'),
    heldCalendarHoursPerPerson: whole(o.maxHeldHours, 'max-held-hours'),
  };
  return Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined));
}

/** `--customer-retention 365` or `none`. */
function retentionOf(value: string): number | null {
  if (value === 'none' || value === 'off') return null;
  const days = Number(value);
  if (!/^\d+$/.test(value) || days < 1 || days > MAX_CUSTOMER_RETENTION_DAYS)
    throw new UsageError(
      `--customer-retention must be whole days from 1 to ${MAX_CUSTOMER_RETENTION_DAYS}, or none; got "${value}"`,
    );
  return days;
}

function approvalWindowOf(value: string): number {
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > MAX_APPROVAL_WINDOW_MINUTES)
    throw new UsageError(
      `--approval-window must be whole minutes from 1 to ${MAX_APPROVAL_WINDOW_MINUTES} (24 hours), got "${value}"`,
    );
  return Number(value);
}

function onOff(value: string, option: string): boolean {
  if (value !== 'on' && value !== 'off') throw new UsageError(`${option} must be on or off, got "${value}"`);
  return value === 'on';
}

/** holdfast tenants add|list|set */
export async function tenants(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const { deps } = runtime;
  const [verb, id] = config.rest;
  if (verb === 'list') {
    const all = await deps.store.read((tx) => tx.tenants.listTenants());
    if (config.json)
      print(
        JSON.stringify(
          all.map((t) => ({ ...t, createdAt: iso(t.createdAt) })),
          null,
          2,
        ),
      );
    else
      print(
        all.length === 0
          ? 'No tenants.'
          : table(
              [
                'TENANT',
                'NAME',
                'CALLS/MIN',
                'HOLDS/PERSON',
                'HOLDS/CONNECTION',
                'APPROVALS/PERSON',
                'HELD HOURS/PERSON',
                'DECIDE WITHIN',
              ],
              all.map((t) => [
                t.id,
                t.name,
                String(t.limits.callsPerMinute),
                String(t.limits.activeHoldsPerPerson),
                String(t.limits.activeHoldsPerConnection),
                String(t.limits.openApprovalsPerPerson),
                String(t.limits.heldCalendarHoursPerPerson),
                `${t.approvalWindowMinutes} min`,
              ]),
            ),
      );
    return 0;
  }
  if ((verb === 'add' || verb === 'set') && id) {
    checkTenantId(id);
    // A contract profile serves its own surface (expert-booking: the catalog of its four tools);
    // the timing contract and 2026-07-28-only are the transport's: the server's --profile.
    const profile = config.options.toolProfile;
    if (profile !== undefined && !(TOOL_PROFILES as readonly string[]).includes(profile))
      throw new UsageError(`--tool-profile must be one of ${TOOL_PROFILES.join(', ')}`);
    const mode = config.options.tools;
    if (profile === 'expert-booking' && mode !== undefined)
      throw new UsageError('--tool-profile expert-booking is served as its own catalog; leave out --tools');
    if (mode !== undefined && !(TOOL_MODES as readonly string[]).includes(mode))
      throw new UsageError(`--tools must be one of ${TOOL_MODES.join(', ')}`);
    const tenant = await setTenant(deps, id, {
      name: config.options.name,
      limits: limitsOf(config),
      ...(profile ? { toolProfile: profile as ToolProfile } : {}),
      ...(mode ? { toolMode: mode as ToolMode } : {}),
      ...(config.options.approvalWindow !== undefined
        ? { approvalWindowMinutes: approvalWindowOf(config.options.approvalWindow) }
        : {}),
      ...(config.options.customerRetention !== undefined
        ? { customerRetentionDays: retentionOf(config.options.customerRetention) }
        : {}),
      ...(config.options.counterOffers !== undefined
        ? { offerAlternatives: onOff(config.options.counterOffers, '--counter-offers') }
        : {}),
      // `--disable-tool none` switches every tool back on.
      ...(config.disabledTools.length > 0
        ? { disabledTools: config.disabledTools.filter((t) => t !== 'none') }
        : {}),
    });
    print(
      config.json
        ? JSON.stringify({ ...tenant, createdAt: iso(tenant.createdAt) })
        : `Tenant ${tenant.id}: ${JSON.stringify(tenant.limits)}; approvals wait ${tenant.approvalWindowMinutes} min; tools ${tenant.toolProfile}, ${tenant.toolMode}; counter-offers ${tenant.offerAlternatives === false ? 'off' : 'on'}; customer details ${tenant.customerRetentionDays ? `erased ${tenant.customerRetentionDays} days after their last booking` : 'kept until erased'}` +
            (tenant.disabledTools.length > 0 ? `, off: ${tenant.disabledTools.join(', ')}` : ''),
    );
    return 0;
  }
  throw new UsageError(
    'usage: holdfast tenants list | add ID [limits] | set ID [limits] (see holdfast tenants --help)',
  );
}

const personJson = (p: Person) => ({
  id: p.id,
  tenant: p.tenantId,
  email: p.email,
  name: p.displayName,
  role: p.role,
  passwordSet: p.passwordHash !== null,
  disabledAt: iso(p.disabledAt),
  createdAt: iso(p.createdAt),
});

/** holdfast users add|list|disable|reset-password|setup-link */
export async function users(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const { deps } = runtime;
  const [verb, email] = config.rest;
  const link = (secret: string, expiresAt: number, person: Person) =>
    config.json
      ? JSON.stringify({
          person: personJson(person),
          setupUrl: setupUrl(runtime, secret),
          expiresAt: iso(expiresAt),
        })
      : `Setup link for ${person.email} (works once, within 24 hours):\n  ${setupUrl(runtime, secret)}`;
  if (verb === 'list') {
    const people = await deps.store.read((tx) => tx.people.listPeople(config.tenantId));
    if (config.json) print(JSON.stringify(people.map(personJson), null, 2));
    else
      print(
        people.length === 0
          ? `Nobody in tenant ${config.tenantId}.`
          : table(
              ['EMAIL', 'ROLE', 'NAME', 'PASSWORD', 'STATE'],
              people.map((p) => [
                p.email,
                p.role,
                p.displayName,
                p.passwordHash ? 'set' : 'not set',
                p.disabledAt ? 'disabled' : 'active',
              ]),
            ),
      );
    return 0;
  }
  if (verb === 'add' && email) {
    const role = (config.options.role ?? 'approver') as Role;
    if (!ROLES.includes(role)) throw new UsageError(`--role must be ${ROLES.join(', ')}; got "${role}"`);
    const person = await addPerson(deps, {
      tenantId: config.tenantId,
      email,
      displayName: config.options.name,
      role,
    });
    const { secret, expiresAt } = await newSetupLink(deps, person.tenantId, person.id);
    print(link(secret, expiresAt, person));
    return 0;
  }
  if (verb === 'setup-link' && email) {
    const person = await personByEmail(deps, email);
    const { secret, expiresAt } = await newSetupLink(deps, person.tenantId, person.id);
    print(link(secret, expiresAt, person));
    return 0;
  }
  if (verb === 'reset-password' && email) {
    const keepTokens = config.options.keepTokens === true;
    const { person, ended, link: fresh } = await resetPassword(deps, email, { keepTokens });
    if (!config.json)
      print(
        keepTokens
          ? `${person.email}'s password is cleared and their sessions ended; their tokens and connections were kept (--keep-tokens).`
          : `${person.email}'s password is cleared; their sessions ended, ${ended.tokens} token(s) and ${ended.connections} connection(s) were revoked.`,
      );
    print(link(fresh.secret, fresh.expiresAt, person));
    return 0;
  }
  if (verb === 'disable' && email) {
    const person = await disablePerson(deps, email);
    print(
      config.json
        ? JSON.stringify(personJson(person))
        : `${person.email} is disabled; their sessions ended and their tokens stop working.`,
    );
    return 0;
  }
  throw new UsageError(
    'usage: holdfast users list | add EMAIL [--role R] | setup-link EMAIL | reset-password EMAIL | disable EMAIL',
  );
}

/** holdfast tokens create|list|revoke */
export async function tokens(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const { deps } = runtime;
  const [verb, arg] = config.rest;
  const now = deps.clock.now();
  if (verb === 'create' && arg) {
    // Without --write-policy: the default of the person's own tenant.
    const holder = await personByEmail(deps, arg);
    const tenant = await deps.store.read((tx) => tx.tenants.getTenant(holder.tenantId));
    const policy = (config.writePolicy ?? tenant?.defaultWritePolicy ?? 'draft') as WritePolicy;
    if (!WRITE_POLICIES.includes(policy))
      throw new UsageError(`--write-policy must be ${WRITE_POLICIES.join(', ')}`);
    const days = whole(config.options.expires, 'expires');
    const { token, secret } = await createToken(deps, {
      email: arg,
      name: config.options.name ?? 'agent',
      scopes: parseScopes(config.options.scopes ?? defaultScopes(config.options.tokenProfile)),
      writePolicy: policy,
      ttlMs: days === undefined ? undefined : days * 24 * 60 * 60_000,
    });
    print(
      config.json
        ? JSON.stringify({
            id: token.id,
            token: secret,
            scopes: token.scopes,
            writePolicy: token.writePolicy,
            expiresAt: iso(token.expiresAt),
          })
        : `Token ${token.id} "${token.name}" for ${arg} (${token.scopes.join(' ')}, policy ${token.writePolicy}, expires ${iso(token.expiresAt)}).\nShown once; give it to the agent host as "Authorization: Bearer <token>":\n  ${secret}`,
    );
    return 0;
  }
  if (verb === 'list') {
    const all = await listTokens(deps, config.tenantId);
    const emails = await emailsById(deps, config.tenantId);
    if (config.json)
      print(
        JSON.stringify(
          all.map((t) => ({
            id: t.id,
            person: t.personId,
            name: t.name,
            scopes: t.scopes,
            writePolicy: t.writePolicy,
            createdAt: iso(t.createdAt),
            expiresAt: iso(t.expiresAt),
            revokedAt: iso(t.revokedAt),
            lastUsedAt: iso(t.lastUsedAt),
          })),
          null,
          2,
        ),
      );
    else
      print(
        all.length === 0
          ? 'No tokens.'
          : table(
              ['TOKEN', 'NAME', 'PERSON', 'SCOPES', 'POLICY', 'STATE', 'LAST USED'],
              all.map((t) => [
                t.id,
                t.name,
                emails.get(t.personId) ?? t.personId,
                t.scopes.join(' '),
                t.writePolicy,
                t.revokedAt !== null
                  ? 'revoked'
                  : t.expiresAt <= now
                    ? 'expired'
                    : `expires ${relative(t.expiresAt, now)}`,
                t.lastUsedAt === null ? 'never' : relative(t.lastUsedAt, now),
              ]),
            ),
      );
    return 0;
  }
  if (verb === 'revoke' && arg) {
    await revokeToken(deps, config.tenantId, arg);
    print(config.json ? JSON.stringify({ id: arg, revoked: true }) : `Token ${arg} is revoked.`);
    return 0;
  }
  throw new UsageError(
    'usage: holdfast tokens create EMAIL [--name N --scopes S --profile hotel-ops --expires DAYS] | list | revoke ID',
  );
}

/** holdfast hosts add|list|revoke */
export async function hosts(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const { deps } = runtime;
  const [verb, arg] = config.rest;
  if (verb === 'add' && arg) {
    const { host, privateKey } = await addHost(deps, config.tenantId, arg);
    print(
      config.json
        ? JSON.stringify({ id: host.id, name: host.name, privateKey, publicKey: host.publicKey })
        : `Host ${host.id} "${host.name}". Its private key (Ed25519, PKCS#8 DER, base64url), shown once; keep it in the host application only:\n  ${privateKey}`,
    );
    return 0;
  }
  if (verb === 'list') {
    const all = await listHosts(deps, config.tenantId);
    if (config.json)
      print(
        JSON.stringify(
          all.map((h) => ({ ...h, createdAt: iso(h.createdAt), revokedAt: iso(h.revokedAt) })),
          null,
          2,
        ),
      );
    else
      print(
        all.length === 0
          ? 'No hosts.'
          : table(
              ['HOST', 'NAME', 'STATE'],
              all.map((h) => [h.id, h.name, h.revokedAt === null ? 'active' : 'revoked']),
            ),
      );
    return 0;
  }
  if (verb === 'revoke' && arg) {
    await revokeHost(deps, config.tenantId, arg);
    print(config.json ? JSON.stringify({ id: arg, revoked: true }) : `Host ${arg} is revoked.`);
    return 0;
  }
  throw new UsageError('usage: holdfast hosts add NAME | list | revoke ID');
}

/**
 * A token's scopes unless --scopes names them: an agent that books, or with --profile hotel-ops
 * an operations agent — it reads cases, drafts task results and reads mail, which carries
 * customers' contact details (sensitive), and books nothing itself.
 */
function defaultScopes(profile: string | undefined): string {
  if (profile === undefined) return 'read,draft,write';
  if (profile === 'hotel-ops') return 'read,draft,sensitive';
  throw new UsageError(`--profile for a token must be hotel-ops (got "${profile}")`);
}
