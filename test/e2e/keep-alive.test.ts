import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { call, connectHttp } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer } from '../support/spawn-server.js';

/** Blocks this process's event loop, as a synchronous CLI run or a busy host does between turns. */
function blockEventLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

let server: RunningServer;
let client: Client;

beforeAll(async () => {
  server = await spawnServer();
  client = await connectHttp(server.url, 'modern');
});

afterAll(async () => {
  await client?.close();
  await server?.stop();
});

describe('idle keep-alive connections outlive a client that paused', () => {
  it('announces a keep-alive timeout longer than the usual 60 s idle of proxies and hosts', async () => {
    const answer = await fetch(new URL('/healthz', server.url));
    await answer.text();
    expect(answer.headers.get('keep-alive')).toBe('timeout=65');
  });

  it('an SDK client whose event loop was blocked past the old 5 s timeout calls again on its pooled socket: 0 socket errors', async () => {
    const errors: unknown[] = [];
    // A used socket left idle in the client's pool, then a block past Node's default of 5 s.
    expect((await call(client, 'list_calendars', {})).ok).toBe(true);
    blockEventLoop(7_000);
    for (let i = 0; i < 3; i++) {
      try {
        expect((await call(client, 'list_calendars', {})).ok).toBe(true);
      } catch (error) {
        errors.push(error);
      }
    }
    expect(errors.map(String)).toEqual([]);
  }, 60_000);
});
