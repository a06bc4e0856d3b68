import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, provisionOnce, tempDbPath } from '../support/spawn-server.js';

const db = tempDbPath();
// holdfast stdio acts for a person: the database's only one.
beforeAll(() => provisionOnce(db.path));
afterAll(() => db.cleanup());

/** A raw stdio session: write JSON lines, collect answers by id. */
function session() {
  const child = spawn(process.execPath, [CLI, 'stdio', '--db', db.path, '--no-seed'], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const answers = new Map<unknown, Record<string, any>>();
  let buffer = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line.trim()) {
        const message = JSON.parse(line);
        answers.set(message.id, message);
      }
    }
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const answer = async (id: unknown) => {
    for (let i = 0; i < 300 && !answers.has(id); i++) await new Promise((r) => setTimeout(r, 20));
    return answers.get(id);
  };
  return { child, answer, send: (line: string) => child.stdin.write(`${line}\n`), stderr: () => stderr };
}

describe('stdio with an oversize line', () => {
  it('answers it with an error naming its id, skips it, and keeps serving', async () => {
    const s = session();
    try {
      s.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'raw', version: '1' },
          },
        }),
      );
      expect((await s.answer(1))?.result, s.stderr()).toBeDefined();
      s.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
      // 11 MiB on one line: more than the SDK reader's own 10 MiB cap, which used to end the process.
      s.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'get_booking', arguments: { bookingId: 'x'.repeat(11 * 1024 * 1024) } },
        }),
      );
      // The id last (as the SDK client writes it), and a nested "id" early that must not be taken for it.
      s.send(
        `{"method":"tools/call","params":{"name":"get_booking","arguments":{"id":"spoofed","bookingId":"${'y'.repeat(400 * 1024)}"}},"jsonrpc":"2.0","id":7}`,
      );
      s.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' }));
      const refused = await s.answer(2);
      expect(refused?.error?.code).toBe(-32600);
      expect(refused?.error?.message).toMatch(/too large/);
      expect((await s.answer(3))?.result).toEqual({});
      expect((await s.answer(7))?.error?.code).toBe(-32600);
      expect(await s.answer('spoofed')).toBeUndefined();
      s.send(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 4,
          method: 'tools/call',
          params: { name: 'list_calendars', arguments: {} },
        }),
      );
      expect((await s.answer(4))?.result?.structuredContent?.ok).toBe(true);
      expect(s.child.exitCode).toBeNull();
      expect(s.stderr()).toContain('stdio request too large');
    } finally {
      s.child.kill();
    }
  });
});
