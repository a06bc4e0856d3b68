// The scripted agent: what a model can reach with Holdfast's answers alone. It knows the task's
// intent (what to book or cancel, for whom) and nothing of the world: it discovers the tools,
// finds calendars by words, reads every id, instant, version and approval out of the answers'
// text, and on an error does what the text's recovery says — the same code for every task.
import { randomUUID } from 'node:crypto';
import { countTokens } from 'gpt-tokenizer';
import {
  alternatives,
  bookingSummary,
  bookingsListed,
  calendarsListed,
  errorCode,
  field,
  recovery,
  slotStarts,
} from './answer-text.mjs';

const DAY = 86_400_000;
const MAX_CALLS = 20;

/** A session's ledger: calls, bytes and tokens read, errors by code. */
function ledger() {
  return { calls: 0, definitionTokens: 0, answerTokens: 0, answerBytes: 0, errors: {} };
}

/**
 * Runs one intent through `client` (the official SDK client, connected). `person` is the user
 * the agent asks: approve(approvalId) and pay(bookingId) resolve with what the person did.
 * Returns the outcome in words and the ledger.
 */
export async function runScriptedAgent(client, intent, person) {
  const spent = ledger();
  const { tools } = await client.listTools();
  spent.definitionTokens += countTokens(JSON.stringify(tools));
  const catalog = tools.some((tool) => tool.name === 'tool_catalog.call');

  /** One tool call; the text content is all the agent keeps. */
  async function call(name, args) {
    if (++spent.calls > MAX_CALLS) throw new Error(`over ${MAX_CALLS} calls`);
    const result = catalog
      ? await client.callTool({ name: 'tool_catalog.call', arguments: { tool: name, arguments: args } })
      : await client.callTool({ name, arguments: args });
    const text = result.content.map((part) => part.text ?? '').join('\n');
    spent.answerBytes += Buffer.byteLength(text);
    spent.answerTokens += countTokens(text);
    const code = errorCode(text);
    if (code) spent.errors[code] = (spent.errors[code] ?? 0) + 1;
    return text;
  }

  /** In catalog mode a model reads a tool's schema once before its first call. */
  const read = new Set();
  async function learn(name) {
    if (!catalog || read.has(name)) return;
    read.add(name);
    spent.calls += 1;
    const result = await client.callTool({ name: 'tool_catalog.read', arguments: { tool: name } });
    spent.definitionTokens += countTokens(result.content.map((part) => part.text ?? '').join('\n'));
  }
  const use = async (name, args) => (await learn(name), call(name, args));

  const outcome =
    intent.do === 'cancel' ? await cancel(use, intent, person) : await book(use, intent, person);
  return { outcome, ...spent };
}

async function calendarsFor(use, words) {
  const ids = [];
  for (const query of [words].flat()) {
    const [first] = calendarsListed(await use('list_calendars', { query }));
    if (!first) return null;
    ids.push(first.id);
  }
  return ids;
}

async function book(use, intent, person) {
  const calendarIds = await calendarsFor(use, intent.calendar);
  if (!calendarIds) return 'no calendar matches';
  const from = new Date(Math.floor((Date.now() + intent.daysAhead * DAY) / DAY) * DAY);
  const found = await use('find_slots', {
    calendarIds,
    from: from.toISOString(),
    to: new Date(from.getTime() + (intent.searchDays ?? 2) * DAY).toISOString(),
    durationMinutes: intent.minutes,
    limit: 5,
  });
  const [start] = slotStarts(found);
  if (!start) return `no free time (${errorCode(found) ?? 'none listed'})`;
  let slot = { start, end: new Date(Date.parse(start) + intent.minutes * 60_000).toISOString() };
  const customer = intent.customer ? { customer: { name: intent.customer } } : {};
  let held = await use('hold_slot', { calendarIds, ...slot, ...customer, idempotencyKey: randomUUID() });
  // Taken meanwhile: the refusal offers the nearest free times; hold the first.
  if (errorCode(held) === 'SLOT_UNAVAILABLE' && /alternatives/.test(recovery(held) ?? '')) {
    [slot] = alternatives(held);
    if (!slot) return 'taken, and no alternative offered';
    held = await use('hold_slot', { calendarIds, ...slot, ...customer, idempotencyKey: randomUUID() });
  }
  const booking = bookingSummary(held);
  if (!booking) return `not held (${errorCode(held)})`;
  if (!intent.confirm) return 'held';
  return settle(use, 'confirm_booking', booking, person);
}

async function cancel(use, intent, person) {
  const listed = bookingsListed(
    await use('list_bookings', { status: intent.status ?? 'CONFIRMED', limit: 20 }),
  );
  const target = listed.find((b) => b.reference === intent.reference) ?? listed[0];
  if (!target) return 'no booking to cancel';
  const booking = bookingSummary(await use('get_booking', { bookingId: target.id }));
  if (!booking) return 'booking unreadable';
  return settle(use, 'cancel_booking', booking, person);
}

/**
 * confirm_booking or cancel_booking until it is done or a person said no: on
 * APPROVAL_REQUIRED the person is asked and the call retried with the approval; on
 * PAYMENT_PENDING the person pays and the call is retried; anything else ends the task.
 */
async function settle(use, tool, booking, person) {
  let approval;
  for (let round = 0; round < 4; round += 1) {
    const answer = await use(tool, {
      bookingId: booking.id,
      expectedVersion: booking.version,
      idempotencyKey: randomUUID(),
      ...(approval ? { approval: { approvalId: approval } } : {}),
    });
    const done = bookingSummary(answer);
    if (done) return done.status.toLowerCase();
    const code = errorCode(answer);
    if (code === 'APPROVAL_REQUIRED') {
      approval = field(answer, 'approvalId');
      const decided = await person.approve(approval);
      if (decided !== 'approved') {
        // The person said no: give the time back instead of leaving it held.
        if (tool === 'confirm_booking')
          await use('release_hold', {
            bookingId: booking.id,
            expectedVersion: booking.version,
            idempotencyKey: randomUUID(),
          });
        return `person ${decided}`;
      }
    } else if (code === 'PAYMENT_PENDING') {
      await person.pay(booking.id);
    } else return `refused (${code})`;
  }
  return 'gave up';
}
