// The one scenario every client goes through, and how each step is judged. A driver gives an
// adapter for its client; this module calls it and records one cell per operation.
import { randomUUID } from 'node:crypto';

export const OPERATIONS = [
  'connect',
  'list tools',
  'list resources',
  'list prompts',
  'find_slots',
  'hold_slot',
  'confirm_booking',
];

/** A step a client has no way to take: shown as "—", neither a pass nor a failure. */
export class NotOffered extends Error {}

const HOUR = 3_600_000;

/** A whole UTC hour `daysAhead` days from now, as RFC 3339. */
export function futureHour(daysAhead) {
  return new Date(Math.ceil((Date.now() + daysAhead * 24 * HOUR) / HOUR) * HOUR).toISOString();
}

/** The same instant written as a clock one hour east of UTC shows it: `…T10:00:00+01:00`. */
export function atPlusOne(iso) {
  return `${new Date(Date.parse(iso) + HOUR).toISOString().slice(0, 19)}+01:00`;
}

const short = (value) => {
  const text =
    value instanceof Error ? value.message : typeof value === 'string' ? value : JSON.stringify(value);
  return String(text).replace(/\s+/g, ' ').slice(0, 160);
};

function expect(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * What a tool call gave back, however the client shows it: the envelope from
 * structuredContent when the client hands that on, else the text the model would read.
 */
function envelopeOf(outcome) {
  const envelope = outcome.envelope;
  if (envelope && typeof envelope.ok === 'boolean') return envelope;
  return null;
}

/**
 * Runs the scenario through `client` (connect, listToolNames, listResources, listPrompts,
 * callTool → { envelope?, text }, close). `ctx`: { calendarId, from }, the calendar's free
 * hour this run searches and holds. Returns { [operation]: { status: 'pass'|'fail'|'n/a', note } }.
 */
export async function runScenario(client, ctx) {
  const cells = {};
  let booking;
  let slot;
  const steps = {
    async connect() {
      await client.connect();
    },
    async 'list tools'() {
      const names = await client.listToolNames();
      const missing = ['find_slots', 'hold_slot', 'confirm_booking'].filter((n) => !names.includes(n));
      expect(missing.length === 0, `tools/list lacks ${missing.join(', ')} (${names.length} tools)`);
      return `${names.length} tools`;
    },
    async 'list resources'() {
      const resources = await client.listResources();
      expect(resources.length > 0, 'no resources');
      return `${resources.length}`;
    },
    async 'list prompts'() {
      const prompts = await client.listPrompts();
      expect(prompts.length > 0, 'no prompts');
      return `${prompts.length}`;
    },
    async find_slots() {
      // Times with an offset other than Z, as a person east of UTC writes them: a client whose
      // date-time validator rejects offsets fails here.
      const to = atPlusOne(new Date(Date.parse(ctx.from) + 3 * HOUR).toISOString());
      const outcome = await client.callTool('find_slots', {
        calendarIds: [ctx.calendarId],
        from: atPlusOne(ctx.from),
        to,
        durationMinutes: 60,
        limit: 3,
      });
      const envelope = envelopeOf(outcome);
      expect(envelope, `no envelope in the result: ${short(outcome.text)}`);
      expect(envelope.ok, `not ok: ${short(envelope.error)}`);
      const slots = envelope.data?.slots ?? [];
      expect(slots.length === 3, `${slots.length} slots, not 3`);
      expect(
        Date.parse(slots[0].start) === Date.parse(ctx.from),
        `first slot ${slots[0].start}, not ${ctx.from}`,
      );
      slot = slots[0];
    },
    async hold_slot() {
      expect(slot, 'no slot found to hold');
      const end = slot.end ?? new Date(Date.parse(slot.start) + HOUR).toISOString();
      const outcome = await client.callTool('hold_slot', {
        calendarIds: [ctx.calendarId],
        start: slot.start,
        end,
        idempotencyKey: randomUUID(),
      });
      const envelope = envelopeOf(outcome);
      expect(envelope, `no envelope in the result: ${short(outcome.text)}`);
      expect(envelope.ok, `not ok: ${short(envelope.error)}`);
      booking = envelope.data?.booking;
      expect(booking?.id && booking.version === 1 && booking.status === 'HELD', `booking ${short(booking)}`);
    },
    async confirm_booking() {
      expect(booking, 'no hold to confirm');
      const outcome = await client.callTool('confirm_booking', {
        bookingId: booking.id,
        expectedVersion: booking.version,
        idempotencyKey: randomUUID(),
      });
      const envelope = envelopeOf(outcome);
      if (envelope) {
        expect(
          !envelope.ok && envelope.error?.code === 'APPROVAL_REQUIRED',
          `answer ${short(envelope.error ?? envelope.data)}`,
        );
        const link = envelope.error.details?.approveUrl;
        expect(typeof link === 'string' && URL.canParse(link), `approveUrl ${short(link)}`);
        return 'APPROVAL_REQUIRED';
      }
      // A client that keeps only the text (an error result thrown as an exception, say): the
      // code and the link must reach the model there.
      const text = outcome.text ?? '';
      expect(text.includes('APPROVAL_REQUIRED'), `no APPROVAL_REQUIRED in ${short(text)}`);
      expect(/https?:\/\/\S+/.test(text), `no approval link in ${short(text)}`);
      return 'APPROVAL_REQUIRED (text only)';
    },
  };
  let connected = true;
  for (const operation of OPERATIONS) {
    if (!connected) {
      cells[operation] = { status: 'fail', note: 'not connected' };
      continue;
    }
    try {
      const note = await steps[operation]();
      cells[operation] = { status: 'pass', note: note ?? '' };
    } catch (error) {
      if (error instanceof NotOffered) cells[operation] = { status: 'n/a', note: error.message };
      else cells[operation] = { status: 'fail', note: short(error) };
      if (operation === 'connect') connected = false;
    }
  }
  await client.close().catch(() => undefined);
  return cells;
}

/** A driver's process: reads its job from argv[2] (JSON), prints its cells as the last line. */
export async function driverMain(makeClient) {
  const job = JSON.parse(process.argv[2]);
  let cells;
  try {
    const client = await makeClient(job);
    cells = await runScenario(client, job);
  } catch (error) {
    cells = { connect: { status: 'fail', note: short(error) } };
  }
  process.stdout.write(`\nINTEROP_RESULT ${JSON.stringify(cells)}\n`);
  // Some clients leave timers or child processes behind; the driver's work is done.
  process.exit(0);
}
