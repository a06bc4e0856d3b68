import { relative, table } from '../../../adapters/format/index.js';
import { rotateSigningKeys } from '../../../adapters/oauth/index.js';
import { listConnections, revokeConnection } from '../../../app/identity/oauth-connections.js';
import { emailsById, personByEmail } from '../../../app/identity/people.js';
import { formatInstant } from '../../../domain/time/instant.js';
import type { Runtime } from '../../runtime/compose.js';
import type { ServerConfig } from '../../config/config.js';
import { UsageError } from '../../config/usage-error.js';
import { sealingSecret } from '../../runtime/oauth-server.js';

type Print = (text: string) => void;

const iso = (t: number | null) => (t === null ? null : formatInstant(t));

/** holdfast connections list [EMAIL] | revoke GRANT_ID: the agent hosts people let in through OAuth. */
export async function connections(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const { deps } = runtime;
  const [verb, arg] = config.rest;
  const now = deps.clock.now();
  if (verb === 'list') {
    const person = arg === undefined ? undefined : await personByEmail(deps, arg);
    const all = await listConnections(deps, config.tenantId, person?.id);
    const emails = config.json ? new Map<string, string>() : await emailsById(deps, config.tenantId);
    if (config.json)
      print(
        JSON.stringify(
          all.map((c) => ({
            ...c,
            createdAt: iso(c.createdAt),
            revokedAt: iso(c.revokedAt),
            lastUsedAt: iso(c.lastUsedAt),
          })),
          null,
          2,
        ),
      );
    else
      print(
        all.length === 0
          ? 'No connections.'
          : table(
              ['CONNECTION', 'CLIENT', 'REDIRECT', 'PERSON', 'SCOPES', 'POLICY', 'STATE', 'LAST USED'],
              all.map((c) => [
                c.grantId,
                c.clientName,
                c.redirectHost,
                emails.get(c.personId) ?? c.personId,
                c.scopes.join(' '),
                c.writePolicy,
                c.revokedAt === null ? 'active' : 'revoked',
                c.lastUsedAt === null ? 'never' : relative(c.lastUsedAt, now),
              ]),
            ),
      );
    return 0;
  }
  if (verb === 'revoke' && arg) {
    await revokeConnection(deps, config.tenantId, arg);
    print(
      config.json
        ? JSON.stringify({ id: arg, revoked: true })
        : `Connection ${arg} is revoked: its refresh tokens are gone and its access tokens stop at their next call.`,
    );
    return 0;
  }
  throw new UsageError('usage: holdfast connections list [EMAIL] | revoke CONNECTION_ID');
}

/** holdfast oauth rotate-keys [--purge-retired]: a new signing key for the embedded authorization server. */
export async function oauth(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  if (config.rest[0] !== 'rotate-keys' || config.rest.length > 1)
    throw new UsageError('usage: holdfast oauth rotate-keys [--purge-retired]');
  const { deps } = runtime;
  const purgeRetired = config.options.purgeRetired === true;
  const { kid, removed } = await rotateSigningKeys(deps.store, deps.clock, sealingSecret(runtime), {
    purgeRetired,
  });
  print(
    config.json
      ? JSON.stringify({ kid, removedRetiredKeys: removed })
      : `New signing key ${kid}. ${removed} retired key(s) removed. ` +
          (purgeRetired
            ? 'Tokens the removed keys signed stop verifying within a minute; restart every instance now so none signs with a removed key.'
            : 'Restart instances one by one (each signs with the key it started with); the retired keys keep verifying for 24 hours.'),
  );
  return 0;
}
