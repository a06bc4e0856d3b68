import { describe, expect, it } from 'vitest';
import { parseArguments } from '../../../src/adapters/mcp/edge-schema.js';
import { linksFor } from '../../../src/adapters/mcp/links.js';
import { toToolError } from '../../../src/adapters/mcp/tool-error.js';
import { DomainError, errorCatalog, errorCodes } from '../../../src/domain/errors.js';
import { findSlotsTool } from '../../../src/adapters/mcp/tools/find-slots.js';
import { holdSlotTool } from '../../../src/adapters/mcp/tools/hold-slot.js';
import { envelopeOf } from '../../../src/adapters/mcp/schemas.js';

const links = linksFor({
  publicBaseUrl: 'http://127.0.0.1:4110',
  paymentUrlBase: 'http://127.0.0.1:4110/pay/',
  cliDatabaseArgs: '--db x.db',
});
const T = Date.UTC(2030, 0, 7, 9, 30);
/** Codes whose details the transport completes (links, instants); checked one by one below. */
const completed = new Set(['APPROVAL_REQUIRED', 'PAYMENT_PENDING']);

describe('toToolError: the one mapping from thrown values to what a model sees', () => {
  it.each(errorCodes.filter((c) => !completed.has(c)))(
    '%s keeps its code, retryable flag, details and recovery',
    (code) => {
      const mapped = toToolError(new DomainError(code, 'message', { bookingId: 'bk_1' } as never), links);
      expect(mapped).toEqual({
        code,
        message: 'message',
        retryable: errorCatalog[code].retryable,
        details: { bookingId: 'bk_1' },
        recovery: { action: errorCatalog[code].recovery },
      });
    },
  );

  it('gives instants their RFC 3339 form and adds the links only the transport knows', () => {
    const details = (error: DomainError) => toToolError(error, links).details;
    expect(
      details(
        new DomainError('SLOT_UNAVAILABLE', 'm', {
          calendarIds: ['cal_a'],
          alternatives: [{ start: T, end: T + 900_000, reserved: false }],
        }),
      ),
    ).toEqual({
      calendarIds: ['cal_a'],
      alternatives: [{ start: '2030-01-07T09:30:00Z', end: '2030-01-07T09:45:00Z', reserved: false }],
    });
    expect(details(new DomainError('HOLD_EXPIRED', 'm', { bookingId: 'bk_1', expiredAt: T }))).toEqual({
      bookingId: 'bk_1',
      expiredAt: '2030-01-07T09:30:00Z',
    });
    expect(
      details(new DomainError('PAYMENT_PENDING', 'm', { bookingId: 'bk_1', holdExpiresAt: null })),
    ).toEqual({
      bookingId: 'bk_1',
      holdExpiresAt: null,
      paymentUrl: 'http://127.0.0.1:4110/pay/bk_1',
    });
    expect(details(new DomainError('APPROVAL_PENDING', 'm', { approvalId: 'ap', expiresAt: T }))).toEqual({
      approvalId: 'ap',
      expiresAt: '2030-01-07T09:30:00Z',
    });
    const intent = {
      action: 'cancel_booking' as const,
      bookingId: 'bk_1',
      reference: 'R',
      start: 's',
      end: 'e',
      version: 1,
    };
    const required = details(
      new DomainError('APPROVAL_REQUIRED', 'm', {
        approvalId: 'ap',
        intent,
        intentHash: 'sha256:h',
        summary: {} as never,
        expiresAt: T,
      }),
    );
    expect(required).toMatchObject({
      approvalId: 'ap',
      approveUrl: 'http://127.0.0.1:4110/console/approvals/ap',
      cli: 'holdfast approvals approve ap --db x.db',
      expiresAt: '2030-01-07T09:30:00Z',
    });
  });

  it('hides unknown errors behind INTERNAL without their message or stack', () => {
    const mapped = toToolError(
      new Error('SQLITE_CORRUPT: database disk image is malformed at /var/lib/x.db'),
      links,
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
      error: toToolError(
        new DomainError(code, 'm', { field: 'x', bookingId: 'b', approvalId: 'a', expiresAt: 0 } as never),
        links,
      ),
      meta: { traceId: 't', operationId: 'op_1', serverTime: '2030-01-07T09:00:00Z' },
    };
    expect(envelopeOf(holdSlotTool.data).safeParse(envelope).success).toBe(true);
  });
});
