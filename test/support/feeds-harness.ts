import { randomUUID } from 'node:crypto';
import type { RequestListener, Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import { renderIcs } from '../../src/adapters/feeds/index.js';
import { mountCalendarFeeds } from '../../src/adapters/http/calendar-feed-route.js';
import { silentLogger } from '../../src/adapters/log/json-logger.js';
import { createHoldfastServer } from '../../src/adapters/mcp/server-factory.js';
import { calendarFeed } from '../../src/app/feeds/feed-links.js';
import { localConnection } from '../../src/app/identity/tokens.js';
import type { Runtime } from '../../src/main/runtime/compose.js';
import { buildRuntime } from '../../src/main/runtime/compose.js';
import { toolContext } from '../../src/main/runtime/tool-context.js';
import { readConfig } from '../../src/main/config/config.js';
import { manualClock } from './app-harness.js';
import { ok } from './mcp-clients.js';
import { addAgent, identityDeps } from './provision.js';
import { tempDbPath } from './spawn-server.js';

const allDay = [{ start: '00:00', end: '24:00' }];
export const openAllWeek = {
  weekly: { mon: allDay, tue: allDay, wed: allDay, thu: allDay, fri: allDay, sat: allDay, sun: allDay },
  overrides: [],
};

/**
 * A Holdfast server in this process on a SQLite file, its clock in the test's hand: the real MCP
 * client over an in-memory transport (write policy direct: confirms need no approval), and the
 * feed route on a Hono app as serve mounts it.
 */
export async function feedsServer(start: number) {
  const db = tempDbPath();
  const { deps: identity, close } = await identityDeps(db.path);
  await addAgent(identity, { email: 'owner@feeds.example' });
  await close();
  const clock = manualClock(start);
  const built = await buildRuntime(readConfig(['stdio', '--db', db.path, '--no-seed'], {}), silentLogger, {
    createAuditKey: true,
  });
  const runtime: Runtime = { ...built, deps: { ...built.deps, clock } };
  const principal = await localConnection(runtime.deps, 'owner@feeds.example', 'direct');
  const server = createHoldfastServer(toolContext(runtime, silentLogger, 'stdio', principal));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'feeds-test', version: '1' });
  await client.connect(clientSide);
  const http = new Hono();
  mountCalendarFeeds(http as never, {
    render: async (secret) => {
      const feed = await calendarFeed(runtime.deps, secret);
      return feed && renderIcs(feed, clock.now());
    },
  });
  return {
    db,
    clock,
    runtime,
    deps: runtime.deps,
    tenantId: principal.tenantId,
    client,
    get: (path: string) => http.request(path),
    async calendar(name: string, timeZone: string) {
      const data = await ok<{ calendar: { id: string } }>(client, 'create_calendar', {
        name,
        timeZone,
        availability: openAllWeek,
        idempotencyKey: randomUUID(),
      });
      return data.calendar.id;
    },
    async close() {
      await client.close();
      await built.close();
      db.cleanup();
    },
  };
}

/** A local feed server on 127.0.0.1 whose answer the test sets per request. */
export async function feedOrigin(answer: RequestListener) {
  const server: Server = createServer(answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
