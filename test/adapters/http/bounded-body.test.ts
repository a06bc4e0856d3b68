import { describe, expect, it } from 'vitest';
import { readBody } from '../../../src/adapters/http/bounded-body.js';
import { addressKey, AnonymousAdmission } from '../../../src/adapters/http/anonymous-admission.js';
import { jsonRpcIdOf } from '../../../src/adapters/mcp/request-id.js';

/** A request whose body arrives in these chunks, then ends (or never does). */
function streamed(chunks: (string | Uint8Array)[], { end = true, headers = {} } = {}): Request {
  let pulled = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[pulled++];
      if (next !== undefined)
        controller.enqueue(typeof next === 'string' ? new TextEncoder().encode(next) : next);
      else if (end) controller.close();
      else return new Promise(() => undefined);
    },
  });
  return new Request('http://127.0.0.1/mcp', {
    method: 'POST',
    body,
    headers,
    duplex: 'half',
  } as RequestInit);
}

describe('readBody: once, as a stream, its bytes counted as they arrive', () => {
  it('reads a body within the limit whole', async () => {
    const read = await readBody(streamed(['{"a":', '1}']), { maxBytes: 7, deadlineMs: 1_000 });
    expect(read.kind).toBe('read');
    expect(new TextDecoder().decode((read as { bytes: Uint8Array }).bytes)).toBe('{"a":1}');
  });

  it('counts bytes, not characters: CJK text at a third of the limit in characters is over it', async () => {
    const text = '预订'.repeat(100); // 200 characters, 600 bytes
    expect((await readBody(streamed([text]), { maxBytes: 599, deadlineMs: 1_000 })).kind).toBe('too_large');
    expect((await readBody(streamed([text]), { maxBytes: 600, deadlineMs: 1_000 })).kind).toBe('read');
  });

  it('stops at the limit without reading on: a body that never ends is refused once past it', async () => {
    let offered = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        offered++;
        controller.enqueue(new Uint8Array(1024).fill(120));
      },
    });
    const request = new Request('http://127.0.0.1/mcp', {
      method: 'POST',
      body: endless,
      duplex: 'half',
    } as RequestInit);
    const read = await readBody(request, { maxBytes: 10 * 1024, deadlineMs: 1_000 });
    expect(read.kind).toBe('too_large');
    expect((read as { head: Uint8Array }).head.byteLength).toBe(512);
    // Pulled just past the limit (and what the stream keeps ahead), never the rest.
    expect(offered).toBeLessThan(16);
  });

  it('refuses a declared length over the limit before reading a byte', async () => {
    const read = await readBody(streamed(['x'], { headers: { 'content-length': '11' } }), {
      maxBytes: 10,
      deadlineMs: 1_000,
    });
    expect(read).toEqual({ kind: 'too_large', head: new Uint8Array(0) });
  });

  it('gives up on a body that does not arrive within the deadline', async () => {
    const started = performance.now();
    const read = await readBody(streamed(['{"a"'], { end: false }), { maxBytes: 1_000, deadlineMs: 100 });
    expect(read.kind).toBe('too_slow');
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
  });
});

describe('the id of a message too large to parse', () => {
  it.each([
    ['{"jsonrpc":"2.0","id":7,"method":"x","params":{"y":"', '', 7],
    ['{"id":"abc","method":"x"', '', 'abc'],
    ['{"method":"tools/call","params":{"arguments":{"id":"spoofed"', '', null],
    ['{"method":"x","params":{"a":"', '"}},"jsonrpc":"2.0","id":9}', 9],
  ])('%s … %s -> %s', (head, tail, id) => expect(jsonRpcIdOf(head, tail)).toBe(id));
});

describe('admission of requests nobody is known for yet', () => {
  it('bounds them per address and in all; a release (once) frees a place', () => {
    const admission = new AnonymousAdmission({ perAddress: 2, total: 3 });
    const a1 = admission.enter('a');
    const a2 = admission.enter('a');
    expect(admission.enter('a')).toEqual({ refused: 429 });
    const b1 = admission.enter('b');
    expect(admission.enter('c')).toEqual({ refused: 503 });
    expect(admission.inFlight).toBe(3);
    if ('release' in a1) {
      a1.release();
      a1.release();
    }
    expect(admission.inFlight).toBe(2);
    expect('release' in admission.enter('c')).toBe(true);
    expect([a2, b1].every((entered) => 'release' in entered)).toBe(true);
  });
});

describe('whom admission counts for', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::99', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('%s counts as %s', (address, key) => expect(addressKey(address)).toBe(key));

  it('one /64 is one party: its addresses share the per-address bound', () => {
    const admission = new AnonymousAdmission({ perAddress: 2, total: 10 });
    expect('release' in admission.enter('2001:db8:1:2::1')).toBe(true);
    expect('release' in admission.enter('2001:db8:1:2::2')).toBe(true);
    expect(admission.enter('2001:db8:1:2:aaaa::3')).toEqual({ refused: 429 });
    expect('release' in admission.enter('2001:db8:1:3::1')).toBe(true);
  });
});
