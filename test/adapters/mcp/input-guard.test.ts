import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INPUT_LIMITS, inspectInput, printable } from '../../../src/adapters/mcp/input-guard.js';
import { validateInput } from '../../../src/adapters/mcp/edge-schema.js';
import { holdSlotTool } from '../../../src/adapters/mcp/tools/hold-slot.js';
import { boundedDigest } from '../../../src/adapters/ids/bounded-digest.js';
import { jcsDigest } from '../../../src/adapters/ids/jcs-digest.js';
import { previewOf, rejectedPreview } from '../../../src/adapters/audit/preview.js';
import type { DomainError } from '../../../src/domain/errors.js';

function nested(depth: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let node = root;
  for (let i = 0; i < depth; i++) node = (node.a = {}) as Record<string, unknown>;
  return root;
}

describe('the edge rule for strings and shapes', () => {
  it.each([
    ['a lone high surrogate', { bookingId: 'bk_\ud800' }, 'bookingId', /lone UTF-16 surrogate/],
    ['a lone low surrogate', { bookingId: 'bk_\udfff' }, 'bookingId', /lone UTF-16 surrogate/],
    ['a NUL', { label: 'a\u0000b' }, 'label', /NUL/],
    ['a control character', { label: 'a\u0007b' }, 'label', /control character/],
    ['a right-to-left override', { label: 'abc\u202Egpj.exe' }, 'label', /bidirectional/],
    ['an isolate', { label: '\u2066x' }, 'label', /bidirectional/],
    ['a C1 control (CSI)', { label: 'a\u009b31mb' }, 'label', /control character/],
    ['an invisible tag character', { label: 'ok\udb40\udc41\udb40\udc42' }, 'label', /tag character/],
    ['a byte-order mark', { label: 'a\ufeffb' }, 'label', /byte-order mark/],
    ['a noncharacter', { label: 'a\uffffb' }, 'label', /noncharacter/],
    ['a deep object', { customer: nested(3000) }, 'customer.a.a.a.a.a.a.a', /nested deeper/],
    [
      'too many keys',
      { customer: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 1])) },
      'customer',
      /more than 64 keys/,
    ],
    [
      'a long array',
      { calendarIds: Array.from({ length: 401 }, () => 'c') },
      'calendarIds',
      /more than 400 items/,
    ],
    ['a huge string', { label: 'x'.repeat(10_001) }, 'label', /longer than/],
    [
      '__proto__ as a key',
      JSON.parse('{"customer":{"__proto__":{"x":1}}}'),
      'customer.__proto__',
      /not an allowed field name/,
    ],
    ['a bad key', { ['k\u0000']: 1 }, 'k\\u0000', /field name contains a NUL/],
    ['an infinite number', JSON.parse('{"limit":1e400}'), 'limit', /finite/],
  ])('refuses %s, naming the field', (_name, args, field, message) => {
    const problem = inspectInput(args);
    expect(problem?.field).toBe(field);
    expect(problem?.message).toMatch(message);
  });

  it('accepts ordinary text in any script, emoji and line breaks', () => {
    expect(inspectInput({ label: 'Zoë · 東京 · مرحبا · 👩‍⚕️\nline two\tand a tab' })).toBeNull();
  });

  it('bounds totals as well as single values', () => {
    const many = { items: Array.from({ length: 300 }, () => ({ a: 'x'.repeat(1000) })) };
    expect(inspectInput(many)?.message).toMatch(/characters of text in all/);
    const wide = { a: Array.from({ length: 400 }, () => Array.from({ length: 60 }, () => 1)) };
    expect(inspectInput(wide)?.message).toMatch(/values in all/);
  });

  it('never throws, whatever the value (fast-check, including lone surrogates and deep nesting)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), fc.string({ unit: 'binary' }), (value, text) => {
        inspectInput(value);
        inspectInput({ text, nested: [value, { text }] });
      }),
      { numRuns: 300 },
    );
    expect(() => inspectInput(nested(100_000))).not.toThrow();
  });

  it('answers INVALID_ARGUMENTS with a printable, bounded field before the schema runs', () => {
    const args = { ['\ud800'.repeat(500)]: 1 };
    try {
      validateInput(holdSlotTool.input, args);
      expect.unreachable();
    } catch (error) {
      const e = error as DomainError;
      expect(e.code).toBe('INVALID_ARGUMENTS');
      expect(String(e.details.field).length).toBeLessThanOrEqual(201);
      expect(String(e.details.field)).toMatch(/^(\\ud800)+/);
    }
  });

  it('lists at most five unknown fields, whatever was sent', () => {
    const keys = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`unknown_${i}`, 1]));
    const valid = {
      calendarIds: ['c'],
      start: '2030-01-07T09:00:00Z',
      end: '2030-01-07T10:00:00Z',
      idempotencyKey: crypto.randomUUID(),
    };
    try {
      validateInput(holdSlotTool.input, { ...valid, ...keys });
      expect.unreachable();
    } catch (error) {
      expect((error as DomainError).message).toMatch(/unknown fields unknown_0, .*unknown_4 and 55 more$/);
    }
  });

  it('prints odd characters as escapes and truncates', () => {
    expect(printable('a\u0000b\u202Ec\ud800', 100)).toBe('a\\u0000b\\u202ec\\ud800');
    expect(printable('x'.repeat(10), 4)).toBe('xxxx…');
    expect(INPUT_LIMITS.maxDepth).toBeGreaterThanOrEqual(6);
  });
});

describe('bounded digest of refused input', () => {
  it('digests what the canonicaliser cannot, without throwing', () => {
    expect(boundedDigest({ a: '\udfff' })).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(boundedDigest(nested(100_000))).toMatch(/^sha256:/);
    expect(boundedDigest({ a: Infinity })).toBe(boundedDigest({ a: null }));
  });

  it('agrees with the RFC 8785 digest wherever that one is defined', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6, noUnicodeString: false }), (value) => {
        const safe = JSON.parse(JSON.stringify(value)) as unknown;
        expect(boundedDigest(safe)).toBe(jcsDigest.ofJson(safe));
      }),
      { numRuns: 300 },
    );
  });
});

describe('audit preview by allowlist', () => {
  const digest = (value: unknown) => `hmac:${JSON.stringify(value).length}`;

  it('keeps ids and times, digests customer details, labels, names and anything unknown', () => {
    const preview = JSON.parse(
      previewOf(
        {
          calendarIds: ['cal_AGcQKDOfNH9hGyxwLWjcyA', 'jane.doe@example.com'],
          timeZone: 'Europe/Berlin',
          start: '2030-01-07T09:00:00Z',
          customer: { name: 'Ada', email: 'ada@example.com', extra: { cell: '555 0100' } },
          label: 'Call Ada on 555 0100',
          name: 'Dr. Who',
          somethingNew: 'secret',
          humanApproval: {
            approvalId: '6f1c6c3e-4d2b-4d07-9d3e-1f5b1f7a2b10',
            intent: { x: 1 },
            decision: 'APPROVE',
          },
        },
        digest,
      ),
    );
    // A value kept as given must have its field's shape: personal data smuggled into an id is digested.
    expect(preview.calendarIds[0]).toBe('cal_AGcQKDOfNH9hGyxwLWjcyA');
    expect(preview.calendarIds[1]).toMatch(/^hmac:/);
    expect(preview.timeZone).toBe('Europe/Berlin');
    expect(preview.start).toBe('2030-01-07T09:00:00Z');
    expect(preview.customer.fields).toEqual(['name', 'email', 'extra']);
    expect(preview.label).toMatch(/^hmac:/);
    expect(preview.name).toMatch(/^hmac:/);
    expect(preview.somethingNew).toMatch(/^hmac:/);
    expect(preview.humanApproval).toMatchObject({
      approvalId: '6f1c6c3e-4d2b-4d07-9d3e-1f5b1f7a2b10',
      decision: 'APPROVE',
    });
    expect(preview.humanApproval.intent).toMatch(/^hmac:/);
    expect(JSON.stringify(preview)).not.toMatch(/Ada|555|example\.com|Who|secret/);
    const smuggled = JSON.parse(
      previewOf({ timeZone: 'jane.doe@example.com', amount: '+4917012345678' }, digest),
    );
    expect(JSON.stringify(smuggled)).not.toMatch(/jane|4917/);
  });

  it("digests a key named after Object.prototype's methods instead of calling them (fuzz find)", () => {
    const keys = ['valueOf', 'hasOwnProperty', 'toString', 'isPrototypeOf', 'propertyIsEnumerable'];
    const preview = JSON.parse(previewOf(Object.fromEntries(keys.map((k) => [k, false])), digest));
    expect(Object.keys(preview)).toEqual(keys);
    for (const key of keys) expect(preview[key]).toMatch(/^hmac:/);
    const customer = JSON.parse(previewOf({ customer: { valueOf: 1, name: 'Ada' } }, digest)).customer;
    expect(customer.fields).toEqual(['name']);
  });

  it('names a refused field only by the parts its schema knows', () => {
    const known = new Set(['customer', 'extra', 'calendarIds']);
    expect(JSON.parse(rejectedPreview('customer.extra.jane.doe@example.com', known))).toEqual({
      rejected: 'customer.extra.*.*.*',
    });
    expect(JSON.parse(rejectedPreview('customer.Jane Doe', known))).toEqual({ rejected: 'customer.*' });
    expect(JSON.parse(rejectedPreview('calendarIds[3]', known))).toEqual({ rejected: 'calendarIds[3]' });
  });
});

describe('checkpoint files and logs', () => {
  it('takes checkpoint lines from a log, ignores lines that only mention the word, reports broken ones', async () => {
    const { parseCheckpoints } = await import('../../../src/adapters/audit/checkpoint.js');
    const good = { type: 'holdfast-audit-checkpoint', seq: 3, head: 'h', at: 'now', keyId: 'k', mac: 'm' };
    const text = [
      JSON.stringify({ level: 'info', message: 'audit checkpoint', checkpoint: good }),
      JSON.stringify({
        level: 'warn',
        message: 'bad header',
        error: 'MCP-Protocol-Version: holdfast-audit-checkpoint',
      }),
      'plain text holdfast-audit-checkpoint',
      JSON.stringify(good),
      JSON.stringify({ ...good, mac: undefined }),
    ].join('\n');
    const parsed = parseCheckpoints(text);
    expect(parsed.checkpoints).toHaveLength(2);
    expect(parsed.malformedLines).toEqual([5]);
  });
});
