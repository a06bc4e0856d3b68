import type { CallToolResult } from '@modelcontextprotocol/server';
import type { AnswerShape } from '../../tool-kit.js';
import type { ToolError } from '../../tool-error.js';

/**
 * deltat's four error types (`CONFLICT` choose another time, `EXPIRED` hold again, `INVALID`,
 * `NOT_FOUND`); Holdfast's codes the seed has no word for (an approval to ask for, a limit) keep
 * their own name, in the same `CODE: message` form.
 */
export function deltatCode(code: string): string {
  switch (code) {
    case 'SLOT_UNAVAILABLE':
    case 'OUTSIDE_AVAILABILITY':
    case 'OUTSIDE_BOOKING_RULES':
      return 'CONFLICT';
    case 'HOLD_EXPIRED':
      return 'EXPIRED';
    case 'INVALID_ARGUMENTS':
    case 'INVALID_STATE':
    case 'INVALID_CURSOR':
    case 'IDEMPOTENCY_CONFLICT':
    case 'VERSION_CONFLICT':
      return 'INVALID';
    case 'NOT_FOUND':
      return 'NOT_FOUND';
    default:
      return code;
  }
}

/** RFC 3339 as deltat writes it: UTC with milliseconds (`2026-06-01T12:00:00.000Z`). */
export const deltatInstant = (instant: string | number): string =>
  new Date(typeof instant === 'number' ? instant : Date.parse(instant)).toISOString();

const LOCAL = new Map<string, Intl.DateTimeFormat>();

/** A time as a person reads it in the calendar's zone: `1 Jun 2026, 2:00 pm`. */
export function deltatLocal(instant: string | number, timeZone: string): string {
  let format = LOCAL.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-GB', {
      day: 'numeric',
      month: 'short',
      year: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      hour12: true,
      timeZone,
    });
    LOCAL.set(timeZone, format);
  }
  return format.format(new Date(typeof instant === 'number' ? instant : Date.parse(instant)));
}

/** What the seed tells a model to do with the times it offers instead. */
export const NEXT =
  'These times were free a moment ago but are NOT reserved. Offer one, then call hold_slot on it before you tell anyone it is theirs.';

interface WireAlternative {
  readonly start: string;
  readonly end: string;
  readonly timeZone?: string;
}

/**
 * A refused time that comes with the times that were free instead: the seed's JSON, exactly —
 * nothing was booked, held or reserved; whether the same time may free up; the alternatives in
 * UTC and in the calendar's local time; what to do next.
 */
export function refusalWithAlternatives(error: ToolError, offerAlternatives: boolean) {
  const alternatives = (error.details.alternatives as readonly WireAlternative[] | undefined) ?? [];
  if (!offerAlternatives || alternatives.length === 0) return null;
  return {
    error: deltatCode(error.code),
    booked: false,
    held: false,
    reserved: false,
    retry_same_time: error.details.retryCanSucceed === true,
    alternatives: alternatives.map((a) => ({
      start: deltatInstant(a.start),
      end: deltatInstant(a.end),
      start_local: deltatLocal(a.start, a.timeZone ?? 'UTC'),
    })),
    next: NEXT,
  };
}

/**
 * deltat's answers: a result is its JSON (as text, and structured); a refusal with alternatives
 * is the seed's refusal JSON, any other the plain `CODE: message` line, so a kernel without
 * counter-offers (DELTAT_COUNTER_OFFER=0) reads exactly as before. The one thing added to a
 * message is how to go on where Holdfast asks for more than deltat did (a person's approval).
 */
export function deltatShape(offerAlternatives: boolean): AnswerShape {
  return {
    output: (data) => data,
    ok: ({ data }): CallToolResult => ({
      content: [{ type: 'text', text: JSON.stringify(data) }],
      structuredContent: data as Record<string, unknown>,
    }),
    error: ({ error }): CallToolResult => {
      const refusal = refusalWithAlternatives(error, offerAlternatives);
      if (refusal) return { isError: true, content: [{ type: 'text', text: JSON.stringify(refusal) }] };
      return {
        isError: true,
        content: [{ type: 'text', text: `${deltatCode(error.code)}: ${messageOf(error)}` }],
      };
    },
  };
}

/** The message, and for what deltat never asked (an approval) the step that goes on from it. */
function messageOf(error: ToolError): string {
  if (error.code !== 'APPROVAL_REQUIRED') return error.message;
  const url = error.details.approveUrl;
  const id = error.details.approvalId;
  return `${error.message} Ask the person to open ${String(url)}; once they approved, call the same tool again with approval_id "${String(id)}".`;
}
