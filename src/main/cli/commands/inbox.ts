import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { table } from '../../../adapters/format/index.js';
import { incomingFromEml, incomingFromJson } from '../../../adapters/inbox/index.js';
import type { IncomingMessage } from '../../../app/inbox/ingest.js';
import { ingestMessage } from '../../../app/inbox/ingest.js';
import {
  createIngestToken,
  INGEST_DEFAULT_DAYS,
  INGEST_MAX_DAYS,
  listIngestTokens,
  revokeIngestToken,
} from '../../../app/inbox/ingest-tokens.js';
import { formatInstant } from '../../../domain/time/instant.js';
import type { Runtime } from '../../runtime/compose.js';
import type { ServerConfig } from '../../config/config.js';
import { UsageError } from '../../config/usage-error.js';

type Print = (text: string) => void;

const USAGE =
  'usage: holdfast inbox import FILE… [--provider P --channel C] | inbox tokens create --name NAME [--expires DAYS] | inbox tokens list | inbox tokens revoke ID';

/** One file: an .eml as mail, a .json as the REST endpoint's message (or an array of them). */
async function messagesIn(path: string, config: ServerConfig, now: number): Promise<IncomingMessage[]> {
  const raw = await readFile(path).catch(() => {
    throw new UsageError(`cannot read ${path}`);
  });
  if (path.toLowerCase().endsWith('.json')) {
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new UsageError(`${path} is not JSON`);
    }
    const all = Array.isArray(body) ? body : [body];
    return Promise.all(
      all.map((one) => incomingFromJson(one, new TextEncoder().encode(JSON.stringify(one)))),
    );
  }
  return [
    await incomingFromEml(raw, { provider: config.options.provider, channel: config.options.channel }, now),
  ];
}

/** holdfast inbox import|tokens */
export async function inbox(runtime: Runtime, config: ServerConfig, print: Print): Promise<number> {
  const { deps } = runtime;
  const tenantId = config.tenantId;
  const [verb, sub, arg] = config.rest;
  if (verb === 'import' && config.rest.length > 1) {
    const results = [];
    for (const path of config.rest.slice(1)) {
      for (const incoming of await messagesIn(path, config, deps.clock.now())) {
        const { message, created } = await ingestMessage(deps, tenantId, incoming);
        const conversation = await deps.store.read((tx) =>
          tx.inbox.conversation(tenantId, message.conversationId),
        );
        results.push({
          file: basename(path),
          externalMessageId: message.externalId,
          conversation: conversation?.externalId ?? null,
          created,
        });
      }
    }
    print(
      config.json
        ? JSON.stringify(results, null, 2)
        : table(
            ['FILE', 'MESSAGE', 'CONVERSATION', 'RESULT'],
            results.map((r) => [
              r.file,
              r.externalMessageId,
              r.conversation ?? '',
              r.created ? 'added' : 'already there',
            ]),
          ),
    );
    return 0;
  }
  if (verb === 'tokens' && sub === 'create') {
    const days = config.options.expires === undefined ? INGEST_DEFAULT_DAYS : Number(config.options.expires);
    if (!(Number.isInteger(days) && days >= 1 && days <= INGEST_MAX_DAYS))
      throw new UsageError(`--expires must be a whole number of days from 1 to ${INGEST_MAX_DAYS}`);
    const { token, secret } = await createIngestToken(deps, tenantId, config.options.name ?? 'ingest', days);
    print(
      config.json
        ? JSON.stringify({ id: token.id, tenant: token.tenantId, name: token.name, secret })
        : `Ingest token ${token.id} for ${token.tenantId} (shown once):\n${secret}`,
    );
    return 0;
  }
  if (verb === 'tokens' && sub === 'list') {
    const all = await listIngestTokens(deps, tenantId);
    const iso = (t: number | null) => (t === null ? null : formatInstant(t));
    print(
      config.json
        ? JSON.stringify(
            all.map((t) => ({
              ...t,
              createdAt: iso(t.createdAt),
              expiresAt: iso(t.expiresAt),
              revokedAt: iso(t.revokedAt),
              lastUsedAt: iso(t.lastUsedAt),
            })),
            null,
            2,
          )
        : all.length === 0
          ? 'No ingest tokens.'
          : table(
              ['TOKEN', 'NAME', 'STATE', 'LAST USED'],
              all.map((t) => [t.id, t.name, t.revokedAt ? 'revoked' : 'live', iso(t.lastUsedAt) ?? 'never']),
            ),
    );
    return 0;
  }
  if (verb === 'tokens' && sub === 'revoke' && arg) {
    await revokeIngestToken(deps, tenantId, arg);
    print(`Ingest token ${arg} revoked.`);
    return 0;
  }
  throw new UsageError(USAGE);
}
