import type { AppDeps } from '../app/deps.js';
import { defaultAppConfig } from '../app/deps.js';
import { openGate } from '../app/write-gate.js';
import { MemorySlotCache } from '../adapters/cache/memory-slot-cache.js';
import { systemClock } from '../adapters/clock/system-clock.js';
import { jcsDigest } from '../adapters/ids/jcs-digest.js';
import { randomIds } from '../adapters/ids/random-ids.js';
import type { Logger } from '../adapters/log/json-logger.js';
import type { ToolContext } from '../adapters/mcp/tool-kit.js';
import { SqliteStore } from '../adapters/storage/sqlite/sqlite-store.js';
import type { Principal } from '../domain/calendar.js';
import type { ServerConfig } from './config.js';

export function buildDeps(config: ServerConfig): AppDeps {
  return {
    store: SqliteStore.open(config.databasePath),
    clock: systemClock,
    ids: randomIds,
    digest: jcsDigest,
    gate: openGate,
    // Writes in this process invalidate at once; the age bound covers holds lapsing meanwhile.
    slotCache: new MemorySlotCache(config.slotCacheMaxAgeMs),
    config: { ...defaultAppConfig, holdTtlMs: config.holdTtlMs },
  };
}

/** Until authentication exists, whoever can reach the loopback port or stdio is the local operator. */
export function localOperator(tenantId: string): Principal {
  return {
    tenantId,
    subject: 'local-operator',
    clientId: 'local',
    scopes: ['bookings:read', 'bookings:write', 'calendars:admin'],
    writePolicy: 'attested',
  };
}

export function toolContext(
  deps: AppDeps,
  config: ServerConfig,
  logger: Logger,
  transport: 'stdio' | 'http',
): ToolContext {
  return { deps, principal: localOperator(config.tenantId), logger, transport };
}
