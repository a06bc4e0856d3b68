import fc from 'fast-check';
import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { errorCodes } from '../../src/domain/errors.js';
import type { FuzzCall, JsonSchema } from '../support/fuzz.js';
import { argumentsOf, fuzzCalls } from '../support/fuzz.js';
import { createOpenCalendar } from '../support/fixtures.js';
import type { Envelope } from '../support/mcp-clients.js';
import { call, connectHttp, MODERN_META } from '../support/mcp-clients.js';
import { runCli } from '../support/spawn-server.js';
import type { Backend, BackendKind } from './harness.js';
import { record, scale, startBackend } from './harness.js';

const CALLS = Number(process.env.FUZZ_CALLS ?? scale(250, 20_000));
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? scale(150, 100_000));
const CLIENTS = 4;

/** Audit records per trace id, once every written entry is sealed. */
async function auditByTrace(backend: Backend): Promise<Map<string, number>> {
  for (let i = 0; i < 500; i++) {
    const [pending] = await backend.sql<{ n: number | string }>('SELECT count(*) AS n FROM audit_pending');
    if (Number(pending!.n) === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const rows = await backend.sql<{ trace_id: string; n: number | string }>(
    'SELECT trace_id, count(*) AS n FROM audit_log GROUP BY trace_id',
  );
  return new Map(rows.map((r) => [r.trace_id, Number(r.n)]));
}

describe.each(['sqlite', 'postgres'] as BackendKind[])(
  'fuzzing every tool as a hostile agent on %s',
  (kind) => {
    it(
      `${CALLS} calls: every answer an envelope, no INTERNAL, no 5xx, one audit record each`,
      async () => {
        const started = performance.now();
        const backend = await startBackend(kind, { writePolicy: 'draft' });
        const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
        const statuses: number[] = [];
        const countingFetch: typeof fetch = async (input, init) => {
          const response = await fetch(input, init);
          statuses.push(response.status);
          return response;
        };
        const figures = {
          seed,
          calls: 0,
          hostile: 0,
          ok: 0,
          refused: 0,
          outsideEnvelope: 0,
          unknownCode: 0,
          internal: 0,
          http5xx: 0,
          auditMissing: 0,
          auditDuplicated: 0,
          verifyOk: false,
          stillAnswers: false,
        };
        const failures: string[] = [];
        try {
          const urls = backend.urls();
          const clients: Client[] = await Promise.all(
            Array.from({ length: CLIENTS }, (_, i) =>
              connectHttp(urls[i % urls.length]!, i % 3 === 2 ? 'legacy' : 'modern', {
                fetch: countingFetch,
              }),
            ),
          );
          const pools = {
            calendar: [
              await createOpenCalendar(clients[0]!, 'Fuzz room A'),
              await createOpenCalendar(clients[0]!, 'Fuzz room B'),
            ],
            booking: [] as string[],
            approval: [] as string[],
          };
          const { tools } = await clients[0]!.listTools();
          const calls = fc.sample(fuzzCalls(tools as { name: string; inputSchema: JsonSchema }[]), {
            numRuns: CALLS,
            seed,
          });
          const traces: string[] = [];
          const learn = (envelope: Envelope<any>) => {
            const data = envelope.data;
            if (data?.booking?.id) pools.booking.push(data.booking.id);
            if (data?.calendar?.id) pools.calendar.push(data.calendar.id);
            const approvalId = envelope.error?.details?.approvalId ?? data?.approvalId;
            if (typeof approvalId === 'string') pools.approval.push(approvalId);
          };
          let next = 0;
          await Promise.all(
            clients.map(async (client) => {
              while (next < calls.length) {
                const fuzz: FuzzCall = calls[next++]!;
                figures.calls++;
                if (fuzz.mutate) figures.hostile++;
                const args = argumentsOf(fuzz, pools);
                let envelope: Envelope<any>;
                try {
                  envelope = await call(client, fuzz.tool, args);
                } catch (error) {
                  figures.outsideEnvelope++;
                  if (failures.length < 10)
                    failures.push(`${fuzz.tool}: ${(error as Error).stack?.slice(0, 1500)}`);
                  continue;
                }
                traces.push(envelope.meta.traceId);
                if (envelope.ok) figures.ok++;
                else {
                  figures.refused++;
                  const code = envelope.error!.code;
                  if (!errorCodes.includes(code as never)) figures.unknownCode++;
                  if (code === 'INTERNAL') {
                    figures.internal++;
                    if (failures.length < 10)
                      failures.push(`${fuzz.tool} INTERNAL: ${JSON.stringify(args).slice(0, 300)}`);
                  }
                }
                learn(envelope);
              }
            }),
          );
          const stillUp = await call(clients[0]!, 'list_calendars', {});
          figures.stillAnswers = stillUp.ok;
          await Promise.all(clients.map((c) => c.close()));
          figures.http5xx = statuses.filter((s) => s >= 500).length;

          const audited = await auditByTrace(backend);
          for (const trace of traces) {
            const n = audited.get(trace) ?? 0;
            if (n === 0) figures.auditMissing++;
            if (n > 1) figures.auditDuplicated++;
          }
          const verify = await runCli(['audit', 'verify', ...backend.databaseArgs]);
          figures.verifyOk = verify.status === 0;
          if (!figures.verifyOk) failures.push(`audit verify: ${verify.stdout}${verify.stderr}`);
        } finally {
          record('7 fuzz', backend.label, {
            ...figures,
            seconds: Math.round((performance.now() - started) / 1000),
          });
          await backend.stop();
        }
        expect(failures).toEqual([]);
        expect(figures).toMatchObject({
          outsideEnvelope: 0,
          unknownCode: 0,
          internal: 0,
          http5xx: 0,
          auditMissing: 0,
          auditDuplicated: 0,
          verifyOk: true,
          stillAnswers: true,
        });
        expect(figures.hostile).toBeGreaterThan(CALLS / 4);
        expect(figures.ok).toBeGreaterThan(0);
      },
      scale(900_000, 3_600_000),
    );
  },
);

/** A protocol request of any method, as a hostile client might shape it. */
const protocolRequest = fc.oneof(
  fc.record({
    method: fc.constantFrom(
      'tools/list',
      'prompts/list',
      'resources/templates/list',
      'server/discover',
      'ping',
    ),
  }),
  fc.record({
    method: fc.constant('prompts/get'),
    name: fc.oneof(
      fc.constantFrom('find_a_time', 'reschedule_booking', 'what_needs_my_approval'),
      fc.string({ maxLength: 30 }),
    ),
    arguments: fc.dictionary(fc.string({ maxLength: 12 }), fc.string({ maxLength: 40 }), { maxKeys: 4 }),
  }),
  fc.record({
    method: fc.constant('resources/list'),
    cursor: fc.option(fc.string({ maxLength: 60 }), { nil: undefined }),
  }),
  fc.record({
    method: fc.constant('resources/read'),
    uri: fc.oneof(
      fc.constantFrom('holdfast://calendars/cal_none', 'holdfast://bookings/bk_none', 'file:///etc/passwd'),
      fc.string({ maxLength: 80 }),
    ),
  }),
  fc.record({
    method: fc.constant('completion/complete'),
    ref: fc.constantFrom(
      { type: 'ref/resource', uri: 'holdfast://calendars/{id}' },
      { type: 'ref/prompt', name: 'find_a_time' },
      { type: 'ref/prompt', name: '__proto__' },
    ),
    value: fc.string({ maxLength: 30 }),
  }),
  fc.record({
    method: fc.constant('tools/call'),
    name: fc.oneof(
      fc.constantFrom('list_calendars', 'hold_slot', 'cancel_booking', 'grant_admin'),
      fc.string({ maxLength: 20 }),
    ),
    arguments: fc.oneof(
      fc.constant(null),
      fc.constant([]),
      fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
    ),
  }),
  fc.record({ method: fc.string({ maxLength: 30 }) }),
);

describe.each(['sqlite', 'postgres'] as BackendKind[])('fuzzing every protocol method on %s', (kind) => {
  it(
    `${REQUESTS} requests of every method with tokens of every scope set: no 5xx, no INTERNAL, one audit record each`,
    async () => {
      const started = performance.now();
      const backend = await startBackend(kind, { instances: 1 });
      const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000);
      const figures = {
        seed,
        requests: 0,
        http5xx: 0,
        internal: 0,
        notJsonRpc: 0,
        auditDelta: 0,
        verifyOk: false,
      };
      const failures: string[] = [];
      try {
        const url = backend.urls()[0]!;
        const email = backend.servers[0]!.agent.email;
        const tokens: string[] = [];
        for (const scopes of ['read', 'read,draft', 'read,draft,write', 'read,draft,write,sensitive']) {
          const made = await runCli([
            'tokens',
            'create',
            email,
            '--name',
            `fuzz ${scopes}`,
            '--scopes',
            scopes,
            '--json',
            ...backend.databaseArgs,
          ]);
          tokens.push((JSON.parse(made.stdout) as { token: string }).token);
        }
        const total = async () => {
          for (let i = 0; i < 500; i++) {
            const [pending] = await backend.sql<{ n: number | string }>(
              'SELECT count(*) AS n FROM audit_pending',
            );
            if (Number(pending!.n) === 0) break;
            await new Promise((r) => setTimeout(r, 20));
          }
          const [row] = await backend.sql<{ n: number | string }>('SELECT count(*) AS n FROM audit_log');
          return Number(row!.n);
        };
        const before = await total();
        const requests = fc.sample(fc.tuple(protocolRequest, fc.nat(tokens.length - 1)), {
          numRuns: REQUESTS,
          seed,
        });
        let next = 0;
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            while (next < requests.length) {
              const [request, who] = requests[next++]!;
              const { method, ...params } = request as { method: string } & Record<string, unknown>;
              const name =
                typeof params.name === 'string'
                  ? params.name
                  : typeof params.uri === 'string'
                    ? params.uri
                    : undefined;
              const body = JSON.stringify({
                jsonrpc: '2.0',
                id: next,
                method,
                params: {
                  ...params,
                  ...(method === 'completion/complete'
                    ? { argument: { name: 'id', value: params.value } }
                    : {}),
                  _meta: MODERN_META,
                },
              });
              const answer = await fetch(url, {
                method: 'POST',
                headers: {
                  authorization: `Bearer ${tokens[who]!}`,
                  'content-type': 'application/json',
                  accept: 'application/json, text/event-stream',
                  'mcp-protocol-version': '2026-07-28',
                  // Header values must be printable: a hostile method or name is sent as written where it can be.
                  ...(/^[\x20-\x7e]*$/.test(method) ? { 'mcp-method': method } : {}),
                  ...(name !== undefined && /^[\x20-\x7e]*$/.test(name) ? { 'mcp-name': name } : {}),
                },
                body,
              });
              figures.requests++;
              const text = await answer.text();
              if (answer.status >= 500) figures.http5xx++;
              let parsed: { error?: { code?: number; data?: { code?: string } }; result?: unknown } | null =
                null;
              try {
                parsed = JSON.parse(text);
              } catch {
                figures.notJsonRpc++;
              }
              if (
                parsed?.error?.code === -32603 ||
                parsed?.error?.data?.code === 'INTERNAL' ||
                /"code":"INTERNAL"/.test(text)
              ) {
                figures.internal++;
                if (failures.length < 10) failures.push(`${method}: ${text.slice(0, 300)}`);
              }
            }
          }),
        );
        figures.auditDelta = (await total()) - before;
        const verify = await runCli(['audit', 'verify', ...backend.databaseArgs]);
        figures.verifyOk = verify.status === 0;
      } finally {
        record('7b protocol fuzz', backend.label, {
          ...figures,
          seconds: Math.round((performance.now() - started) / 1000),
        });
        await backend.stop();
      }
      expect(failures).toEqual([]);
      expect(figures).toMatchObject({ http5xx: 0, internal: 0, notJsonRpc: 0, verifyOk: true });
      // Every request was authenticated: exactly one record each, none missing, none doubled.
      expect(figures.auditDelta).toBe(figures.requests);
    },
    scale(900_000, 3_600_000),
  );
});
