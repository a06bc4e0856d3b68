import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WORKFLOW_TOOLS } from '../../src/adapters/mcp/catalog/catalog-signatures.js';
import { futureHour, openAllWeek } from '../support/fixtures.js';
import type { Era } from '../support/mcp-clients.js';
import { call, connectHttp } from '../support/mcp-clients.js';
import { addAgent, identityDeps } from '../support/provision.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

// The progressive catalog (--tools catalog) with the official client in both eras: three tools
// listed; search pages with a cursor bound to its query; a tool's schema read in pieces with
// exact truncation; calls run through the logical tool's own validation, scope and audit.

let catalog: RunningServer;
let flat: RunningServer;

beforeAll(async () => {
  [catalog, flat] = await Promise.all([
    spawnServer(['--no-seed', '--tools', 'catalog']),
    spawnServer(['--no-seed']),
  ]);
});
afterAll(async () => {
  await catalog?.stop();
  await flat?.stop();
});

async function raw(client: Client, name: string, args: Record<string, unknown>) {
  return client.callTool({ name, arguments: args });
}

const calendarArgs = () => ({
  name: 'Catalog room',
  timeZone: 'Europe/Berlin',
  availability: openAllWeek,
  idempotencyKey: randomUUID(),
});

describe.each<Era>(['modern', 'legacy'])('the tool catalog, %s era', (era) => {
  let agent: Client;
  beforeAll(async () => {
    agent = await connectHttp(catalog.url, era);
  });
  afterAll(() => agent?.close());

  it('lists exactly the three catalog tools', async () => {
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'tool_catalog.call',
      'tool_catalog.read',
      'tool_catalog.search',
    ]);
  });

  it("tool_catalog.call's description gives each booking tool's arguments as its schema has them, so a booking needs no read", async () => {
    const { tools } = await agent.listTools();
    const description = tools.find((t) => t.name === 'tool_catalog.call')!.description!;
    const signatures = [...description.matchAll(/^([a-z_]+)\((.*)\)$/gm)];
    // Every workflow tool, in the order a booking uses them.
    expect(signatures.map(([, name]) => name)).toEqual([...WORKFLOW_TOOLS]);
    for (const [, name, members] of signatures) {
      const read = await call<{ lines: string[] }>(agent, 'tool_catalog.read', {
        tool: name,
        offset: 0,
        limit: 1000,
      });
      const document = JSON.parse(read.data!.lines.join('\n')) as {
        inputSchema: { properties: Record<string, unknown>; required?: string[] };
      };
      const required = document.inputSchema.required ?? [];
      // Every required argument is shown as required, every shown one exists, and an ellipsis
      // marks what was left out.
      const shown = [...members!.matchAll(/(?:^|, )(\w+)(\??): /g)].map(([, arg, optional]) => ({
        arg,
        optional,
      }));
      for (const arg of required) expect(shown, `${name} ${arg}`).toContainEqual({ arg, optional: '' });
      for (const { arg } of shown) expect(Object.keys(document.inputSchema.properties)).toContain(arg);
      const leftOut = Object.keys(document.inputSchema.properties).length > shown.length;
      expect(members!.endsWith('…'), name).toBe(leftOut);
    }
  });

  it('a schema as read leaves out the patterns beside formats, the $schema line and the safe-integer bounds', async () => {
    const read = await call<{ lines: string[] }>(agent, 'tool_catalog.read', {
      tool: 'hold_slot',
      offset: 0,
      limit: 1000,
    });
    const text = read.data!.lines.join('\n');
    expect(text).toMatch(/"format": ?"date-time"/);
    expect(text).toMatch(/"format": ?"uuid"/);
    // The date-time format's regular expression (leap years and all) is gone, and so is the uuid's.
    expect(text).not.toContain('[2468][048]');
    expect(text).not.toContain('[89abAB]');
    expect(text).not.toContain('$schema');
    expect(text).not.toContain('9007199254740991');
    // The phone's own pattern (no format beside it) stays: it says something the format does not.
    expect(text).toMatch(/"pattern": ?"\^\[\+\(\)0-9 \.\/-\]\+\$"/);
  });

  it('search pages through every tool; the same request answers byte for byte the same', async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await call<{
        tools: { name: string; location: string }[];
        total: number;
        nextCursor: string | null;
      }>(agent, 'tool_catalog.search', { query: '', limit: 5, ...(cursor ? { cursor } : {}) });
      expect(page.ok).toBe(true);
      expect(page.data!.total).toBe(24);
      names.push(...page.data!.tools.map((t) => t.name));
      for (const t of page.data!.tools) expect(t.location).toBe(`tool://holdfast/${t.name}`);
      cursor = page.data!.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(5);
    expect(new Set(names).size).toBe(24);
    expect(names).toContain('hold_slot');

    const first = await raw(agent, 'tool_catalog.search', { query: 'booking', limit: 3 });
    const again = await raw(agent, 'tool_catalog.search', { query: 'booking', limit: 3 });
    expect(JSON.stringify(again.content)).toBe(JSON.stringify(first.content));
    expect(JSON.stringify(again.structuredContent)).toBe(JSON.stringify(first.structuredContent));
    expect(first._meta).toMatchObject({ ttlMs: 86_400_000, cacheScope: 'public' });
    const found = first.structuredContent as { data: { tools: { name: string }[]; total: number } };
    expect(found.data.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['cancel_booking', 'confirm_booking']),
    );
    expect(found.data.tools.map((t) => t.name)).not.toContain('list_calendars');
  });

  it('a cursor of another query, or one made up, is INVALID_CURSOR', async () => {
    const page = await call<{ nextCursor: string }>(agent, 'tool_catalog.search', { query: '', limit: 2 });
    for (const [query, cursor] of [
      ['booking', page.data!.nextCursor],
      ['', 'not-a-cursor'],
      ['', Buffer.from('{"q":"x","p":1}').toString('base64url')],
    ] as const) {
      const refused = await call(agent, 'tool_catalog.search', { query, limit: 2, cursor });
      expect(refused.ok).toBe(false);
      expect(refused.error!.code).toBe('INVALID_CURSOR');
      expect(refused.error!.details.field).toBe('cursor');
    }
  });

  it('read gives a tool’s schema in pieces: truncation, omitted lines and next are exact', async () => {
    const whole = await call<{ lines: string[]; totalLines: number; truncated: boolean; next: null }>(
      agent,
      'tool_catalog.read',
      { tool: 'tool://holdfast/hold_slot', offset: 0, limit: 1000 },
    );
    const total = whole.data!.totalLines;
    expect(whole.data!.truncated).toBe(false);
    expect(whole.data!.next).toBeNull();
    expect(whole.data!.lines).toHaveLength(total);
    const schema = JSON.parse(whole.data!.lines.join('\n'));
    expect(schema.inputSchema.required).toEqual(
      expect.arrayContaining(['calendarIds', 'start', 'end', 'idempotencyKey']),
    );

    const pieces: string[] = [];
    let offset = 0;
    for (;;) {
      const piece = await call<{
        lines: string[];
        totalLines: number;
        truncated: boolean;
        omittedLines: number;
        next: { offset: number; limit: number } | null;
      }>(agent, 'tool_catalog.read', { tool: 'hold_slot', offset, limit: 17 });
      const d = piece.data!;
      expect(d.totalLines).toBe(total);
      expect(d.lines.length).toBe(Math.min(17, total - offset));
      expect(d.omittedLines).toBe(total - offset - d.lines.length);
      expect(d.truncated).toBe(d.omittedLines > 0);
      pieces.push(...d.lines);
      if (!d.next) break;
      expect(d.next).toEqual({ offset: offset + 17, limit: 17 });
      offset = d.next.offset;
    }
    expect(pieces).toEqual(whole.data!.lines);

    const text = await raw(agent, 'tool_catalog.read', { tool: 'hold_slot', offset: 0, limit: 10 });
    const head = (text.content as { text: string }[])[0]!.text.split('\n')[0];
    expect(head).toBe(
      `tool://holdfast/hold_slot lines 0-9 of ${total}; ${total - 10} more lines: call tool_catalog.read with tool "hold_slot", offset 10, limit 10.`,
    );

    const past = await call(agent, 'tool_catalog.read', { tool: 'hold_slot', offset: total, limit: 5 });
    expect(past.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'offset' } });
    const unknown = await call(agent, 'tool_catalog.read', { tool: 'drop_tables', offset: 0, limit: 5 });
    expect(unknown.error).toMatchObject({ code: 'NOT_FOUND', details: { field: 'tool' } });
  });

  it('call runs the logical tool: a calendar, its slots and a hold, as the flat tools answer', async () => {
    const made = await call<{ calendar: { id: string } }>(agent, 'tool_catalog.call', {
      tool: 'create_calendar',
      arguments: calendarArgs(),
    });
    expect(made.ok).toBe(true);
    const calendarId = made.data!.calendar.id;
    const held = await call<{ booking: { status: string; calendarIds: string[] } }>(
      agent,
      'tool_catalog.call',
      {
        tool: 'tool://holdfast/hold_slot',
        arguments: {
          calendarIds: [calendarId],
          start: futureHour(2),
          end: futureHour(2, 1),
          idempotencyKey: randomUUID(),
        },
      },
    );
    expect(held.ok).toBe(true);
    expect(held.data!.booking).toMatchObject({ status: 'HELD', calendarIds: [calendarId] });
    expect(held.meta.traceId).toMatch(/^[\da-f]{32}$/);
  });

  it('the catalog is not a way around anything: unknown tools, itself, and malformed calls are refused', async () => {
    for (const tool of [
      'drop_tables',
      'tool_catalog.call',
      'tool_catalog.search',
      'tool://elsewhere/hold_slot',
    ]) {
      const refused = await call(agent, 'tool_catalog.call', { tool, arguments: {} });
      expect(refused.error, tool).toMatchObject({ code: 'NOT_FOUND', details: { field: 'tool' } });
    }
    const notObject = await call(agent, 'tool_catalog.call', { tool: 'list_calendars', arguments: 'all' });
    expect(notObject.error).toMatchObject({ code: 'INVALID_ARGUMENTS', details: { field: 'arguments' } });
    const extra = await call(agent, 'tool_catalog.call', {
      tool: 'list_calendars',
      arguments: {},
      sudo: true,
    });
    expect(extra.error).toMatchObject({ code: 'INVALID_ARGUMENTS' });
  });
});

describe('catalog and flat refuse the same arguments the same way', () => {
  it('every malformed call: same code, field and message', async () => {
    const viaCatalog = await connectHttp(catalog.url, 'modern');
    const viaFlat = await connectHttp(flat.url, 'modern');
    const bad: [string, Record<string, unknown>][] = [
      [
        'hold_slot',
        { calendarIds: ['cal_x'], start: 'tomorrow', end: futureHour(2), idempotencyKey: randomUUID() },
      ],
      [
        'hold_slot',
        { calendarIds: [], start: futureHour(2), end: futureHour(2, 1), idempotencyKey: randomUUID() },
      ],
      ['find_slots', { calendarIds: ['cal_x'], from: futureHour(1), to: futureHour(2), durationMinutes: 60 }],
      ['list_calendars', { limit: 0 }],
      ['list_calendars', { extra: 1 }],
      ['confirm_booking', { bookingId: 'bk_1', expectedVersion: 1, idempotencyKey: 'not-a-uuid' }],
      ['create_calendar', { ...calendarArgs(), name: 'x'.repeat(201) }],
      ['get_booking', { bookingId: 'a\u0000b' }],
    ];
    for (const [tool, args] of bad) {
      const direct = await call(viaFlat, tool, args);
      const relayed = await call(viaCatalog, 'tool_catalog.call', { tool, arguments: args });
      expect(direct.ok, tool).toBe(false);
      expect(relayed.error, tool).toEqual(direct.error);
    }
    await viaCatalog.close();
    await viaFlat.close();
  });
});

describe('the catalog under attack and per tenant', () => {
  it('a read-only token cannot hold through tool_catalog.call: 403 insufficient_scope, accepted 0', async () => {
    const { deps, close } = await identityDeps(catalog.dbPath);
    const reader = await addAgent(deps, { email: 'reader@local.example', scopes: ['read'] });
    await close();
    const seen: number[] = [];
    const recorded: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      seen.push(response.status);
      return response;
    };
    const client = await connectHttp(catalog.url, 'modern', { token: reader.token, fetch: recorded });
    let accepted = 0;
    for (const tool of ['hold_slot', 'tool://holdfast/create_calendar', 'confirm_booking']) {
      const answer = await call(client, 'tool_catalog.call', {
        tool,
        arguments: {
          calendarIds: ['cal_x'],
          start: futureHour(2),
          end: futureHour(2, 1),
          idempotencyKey: randomUUID(),
        },
      }).catch(() => null);
      if (answer?.ok) accepted++;
      expect(seen.at(-1), tool).toBe(403);
    }
    expect(accepted).toBe(0);
    // Reading is within its scope.
    const listed = await call(client, 'tool_catalog.call', { tool: 'list_calendars', arguments: {} });
    expect(listed.ok).toBe(true);
    await client.close();
  });

  it('a tenant switched to the catalog sees it on its next connection; back to inherit, flat again', async () => {
    const namesOn = async () => {
      const client = await connectHttp(flat.url, 'modern');
      const { tools } = await client.listTools();
      await client.close();
      return tools.map((t) => t.name);
    };
    expect(await namesOn()).toContain('hold_slot');
    expect(
      (await runCli(['tenants', 'set', 'local', '--tools', 'catalog', '--db', flat.dbPath])).status,
    ).toBe(0);
    expect((await namesOn()).sort()).toEqual([
      'tool_catalog.call',
      'tool_catalog.read',
      'tool_catalog.search',
    ]);
    const wrong = await runCli(['tenants', 'set', 'local', '--tools', 'nested', '--db', flat.dbPath]);
    expect(wrong.status).not.toBe(0);
    expect(wrong.stderr).toContain('--tools must be one of inherit, flat, catalog');
    expect(
      (await runCli(['tenants', 'set', 'local', '--tools', 'inherit', '--db', flat.dbPath])).status,
    ).toBe(0);
    expect(await namesOn()).toContain('hold_slot');
  });
});
