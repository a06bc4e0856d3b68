import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLogger } from '../../src/adapters/log/json-logger.js';
import { createHoldfastServer } from '../../src/adapters/mcp/server-factory.js';
import type { Tracing } from '../../src/adapters/telemetry/trace-export.js';
import { startTracing } from '../../src/adapters/telemetry/trace-export.js';
import { localConnection } from '../../src/app/identity/tokens.js';
import type { Runtime } from '../../src/main/runtime/compose.js';
import { buildRuntime } from '../../src/main/runtime/compose.js';
import { toolContext } from '../../src/main/runtime/tool-context.js';
import { readConfig } from '../../src/main/config/config.js';
import { openAllWeek } from '../support/fixtures.js';
import type { Envelope } from '../support/mcp-clients.js';
import { addAgent, identityDeps } from '../support/provision.js';
import { tempDbPath } from '../support/spawn-server.js';

// The server in this process with spans going to an in-memory exporter: one trace per call,
// the tool span under the caller's traceparent, store transactions under the tool span, and the
// log lines of the call carrying the same trace and span ids.

const exporter = new InMemorySpanExporter();
const lines: Record<string, unknown>[] = [];
const db = tempDbPath();
let tracing: Tracing;
let runtime: Runtime;
let client: Client;

beforeAll(async () => {
  tracing = await startTracing({ HOLDFAST_TRACE_SYNC: '1' }, 'test', exporter);
  const { deps, close } = await identityDeps(db.path);
  await addAgent(deps, { email: 'owner@local.example' });
  await close();
  const config = readConfig(['stdio', '--db', db.path, '--no-seed'], {});
  const logger = jsonLogger((line) => lines.push(JSON.parse(line) as Record<string, unknown>));
  runtime = await buildRuntime(config, logger, { createAuditKey: true });
  const principal = await localConnection(runtime.deps, 'owner@local.example', 'draft');
  const server = createHoldfastServer(toolContext(runtime, logger, 'stdio', principal));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: 'in-process', version: '1' });
  await client.connect(clientSide);
});
afterAll(async () => {
  await client?.close();
  await runtime?.close();
  await tracing?.shutdown();
  db.cleanup();
});

async function traced(name: string, args: Record<string, unknown>, traceId: string, parent: string) {
  const result = await client.callTool({
    name,
    arguments: args,
    _meta: { traceparent: `00-${traceId}-${parent}-01` },
  });
  return result.structuredContent as unknown as Envelope<Record<string, any>>;
}

describe('spans in an in-memory exporter', () => {
  it('one trace per call, with the caller’s trace id, store spans under the tool span, and the same ids in the logs', async () => {
    const traceIds = [randomBytes(16).toString('hex'), randomBytes(16).toString('hex')];
    const parents = [randomBytes(8).toString('hex'), randomBytes(8).toString('hex')];
    const made = await traced(
      'create_calendar',
      { name: 'Room', timeZone: 'UTC', availability: openAllWeek, idempotencyKey: randomUUID() },
      traceIds[0]!,
      parents[0]!,
    );
    expect(made.ok).toBe(true);
    await traced('list_calendars', {}, traceIds[1]!, parents[1]!);

    const spans = exporter.getFinishedSpans();
    for (const [i, traceId] of traceIds.entries()) {
      const inTrace = spans.filter((s) => s.spanContext().traceId === traceId);
      const tool = inTrace.find((s) => s.name.startsWith('tool '))!;
      expect(tool.name).toBe(i === 0 ? 'tool create_calendar' : 'tool list_calendars');
      expect(tool.parentSpanContext?.spanId).toBe(parents[i]);
      const children = inTrace.filter((s) => s !== tool);
      expect(children.length).toBeGreaterThan(0);
      for (const child of children) {
        expect(child.parentSpanContext?.spanId).toBe(tool.spanContext().spanId);
        expect(child.name).toMatch(/^store\.(read|write)$/);
      }
      const logged = lines.find((l) => l.message === 'tool call' && l.trace_id === traceId);
      expect(logged).toMatchObject({ span_id: tool.spanContext().spanId, transport: 'stdio' });
      expect(logged!.operation_id).toMatch(
        /^[\da-f]{8}-[\da-f]{4}-4[\da-f]{3}-[89ab][\da-f]{3}-[\da-f]{12}$/,
      );
    }
    expect(made.meta).toMatchObject({ traceId: traceIds[0] });
    // Any other trace is background work of its own (the audit chain being sealed): root store
    // spans, never a tool's.
    const others = spans.filter((s) => !traceIds.includes(s.spanContext().traceId));
    for (const span of others) {
      expect(span.name).toMatch(/^store\./);
      expect(span.parentSpanContext).toBeUndefined();
    }
  });
});
