// What each tool's answer costs a model: the bytes and tokens (gpt-tokenizer's o200k_base, an
// estimate) of the compact text content against the JSON envelope the text content used to be
// (the structured content, serialized), and the whole HTTP answer before and after. One real
// SQLite server, one call of every tool, in the order an agent makes them.
import { randomUUID } from 'node:crypto';
import { countTokens } from 'gpt-tokenizer';
import { callToolWhole, provision, spawnHoldfast } from './load.mjs';

const DAY = 86_400_000;
const everyDay = (start, end) =>
  Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((d) => [d, [{ start, end }]]));

function measure(tool, { result, bytes }) {
  const text = result.content[0].text;
  const json = JSON.stringify(result.structuredContent);
  // The same answer with the old text content: the body's escaped text swapped for the escaped JSON.
  const oldBytes = bytes - Buffer.byteLength(JSON.stringify(text)) + Buffer.byteLength(JSON.stringify(json));
  return {
    tool,
    ok: result.structuredContent.ok,
    jsonBytes: Buffer.byteLength(json),
    textBytes: Buffer.byteLength(text),
    jsonTokens: countTokens(json),
    textTokens: countTokens(text),
    oldAnswerBytes: oldBytes,
    answerBytes: bytes,
  };
}

/** Calls every tool once against a fresh database; returns one row per answer. */
export async function benchAnswerSizes(dbPath) {
  const database = ['--db', dbPath];
  const server = await spawnHoldfast(database, provision(database));
  const rows = [];
  const call = async (tool, args, label = tool) => {
    const answer = await callToolWhole(server.url, tool, args);
    rows.push(measure(label, answer));
    return answer.result.structuredContent;
  };
  try {
    const create = (name, timeZone) =>
      call('create_calendar', {
        name,
        timeZone,
        availability: { weekly: everyDay('08:00', '20:00'), overrides: [] },
        idempotencyKey: randomUUID(),
      });
    const berlin = (await create('Berlin desk', 'Europe/Berlin')).data.calendar.id;
    const shanghai = (await create('Jade Room', 'Asia/Shanghai')).data.calendar.id;
    rows.shift();
    await call('set_availability', {
      calendarId: berlin,
      weekly: everyDay('07:00', '21:00'),
      overrides: [],
      idempotencyKey: randomUUID(),
    });
    await call('list_calendars', {});
    const from = new Date(Math.ceil(Date.now() / DAY) * DAY + DAY).toISOString();
    const to = new Date(Date.parse(from) + 14 * DAY).toISOString();
    const found = await call(
      'find_slots',
      { calendarIds: [berlin, shanghai], from, to, durationMinutes: 60, limit: 100 },
      'find_slots (limit 100, 2 calendars)',
    );
    const slot = found.data.slots[0];
    const held = await call('hold_slot', {
      calendarIds: [berlin, shanghai],
      start: slot.start,
      end: slot.end,
      customer: { name: 'Grace Hopper', email: 'grace@example.com' },
      label: 'Quarterly review',
      idempotencyKey: randomUUID(),
    });
    const bookingId = held.data.booking.id;
    await call('get_booking', { bookingId });
    await call('list_bookings', { limit: 20 });
    const confirm = { bookingId, expectedVersion: 1, idempotencyKey: randomUUID() };
    await call('confirm_booking', confirm, 'confirm_booking (approval required)');
    const asked = await call('request_approval', {
      bookingId,
      action: 'cancel_booking',
      idempotencyKey: randomUUID(),
    });
    await call('get_approval', { approvalId: asked.data?.approvalId ?? randomUUID() });
    await call('cancel_booking', { ...confirm, idempotencyKey: randomUUID() }, 'cancel_booking (pending)');
    await call('book_slot', {});
    await call('hold_slot', { calendarIds: [berlin], start: 'tomorrow', end: to }, 'hold_slot (bad input)');
    await call('release_hold', { bookingId, expectedVersion: 1, idempotencyKey: randomUUID() });
  } finally {
    await server.stopAndWait();
  }
  return rows;
}
