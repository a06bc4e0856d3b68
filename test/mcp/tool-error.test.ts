import { describe, expect, it } from 'vitest';
import { parseArguments } from '../../src/adapters/mcp/edge-schema.js';
import { toToolError } from '../../src/adapters/mcp/tool-error.js';
import { DomainError, errorCatalog, errorCodes } from '../../src/domain/errors.js';
import { findSlotsTool } from '../../src/adapters/mcp/tools/find-slots.js';
import { holdSlotTool } from '../../src/adapters/mcp/tools/hold-slot.js';
import { envelopeOf } from '../../src/adapters/mcp/schemas.js';

describe('toToolError: the one mapping from thrown values to what a model sees', () => {
  it.each(errorCodes)('%s keeps its code, retryable flag, details and recovery', (code) => {
    const mapped = toToolError(new DomainError(code, 'message', { bookingId: 'bk_1' }));
    expect(mapped).toEqual({
      code,
      message: 'message',
      retryable: errorCatalog[code].retryable,
      details: { bookingId: 'bk_1' },
      recovery: { action: errorCatalog[code].recovery },
    });
  });

  it('hides unknown errors behind INTERNAL without their message or stack', () => {
    const mapped = toToolError(
      new Error('SQLITE_CORRUPT: database disk image is malformed at /var/lib/x.db'),
    );
    expect(mapped.code).toBe('INTERNAL');
    expect(JSON.stringify(mapped)).not.toMatch(/SQLITE|malformed|\.db|at /);
  });
});

describe('parseArguments: strict edge validation', () => {
  const valid = {
    calendarIds: ['c'],
    start: '2030-01-07T09:00:00Z',
    end: '2030-01-07T10:00:00Z',
    idempotencyKey: crypto.randomUUID(),
  };
  const fieldOf = (schema: typeof holdSlotTool.input | typeof findSlotsTool.input, args: unknown) => {
    try {
      parseArguments(schema as never, args);
      return null;
    } catch (error) {
      return (error as DomainError).details.field;
    }
  };
  it('accepts valid input', () => expect(fieldOf(holdSlotTool.input, valid)).toBeNull());
  it('names unknown, missing, mistyped and nested fields', () => {
    expect(fieldOf(holdSlotTool.input, { ...valid, extra: 1 })).toBe('extra');
    expect(fieldOf(holdSlotTool.input, { ...valid, idempotencyKey: 'abc' })).toBe('idempotencyKey');
    expect(fieldOf(holdSlotTool.input, { ...valid, start: '2030-01-07T09:00:00' })).toBe('start');
    expect(fieldOf(holdSlotTool.input, { ...valid, calendarIds: [] })).toBe('calendarIds');
    expect(fieldOf(holdSlotTool.input, { ...valid, calendarIds: [7] })).toBe('calendarIds[0]');
    const noEnd = { ...valid, end: undefined };
    expect(fieldOf(holdSlotTool.input, noEnd)).toBe('end');
    expect(
      fieldOf(findSlotsTool.input, {
        calendarIds: ['c'],
        from: valid.start,
        to: valid.end,
        durationMinutes: 30,
        limit: 101,
      }),
    ).toBe('limit');
    expect(
      fieldOf(findSlotsTool.input, {
        calendarIds: ['c'],
        from: valid.start,
        to: valid.end,
        durationMinutes: 30.5,
        limit: 1,
      }),
    ).toBe('durationMinutes');
  });
});

describe('error envelopes match the published output schema', () => {
  it.each(errorCodes)('%s', (code) => {
    const envelope = {
      ok: false,
      error: toToolError(new DomainError(code, 'm', { field: 'x' })),
      meta: { traceId: 't', operationId: 'op_1', serverTime: '2030-01-07T09:00:00Z' },
    };
    expect(envelopeOf(holdSlotTool.data).safeParse(envelope).success).toBe(true);
  });
});
