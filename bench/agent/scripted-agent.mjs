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
  return { calls: 0, definitionTokens: 0, answerTokens: 0, answerBytes: 0, errors: {}, texts: [] };
}

/**
 * Runs one intent through `client` (the official SDK client, connected). `person` is the user
 * the agent talks to: review(booking) when shown a hold, approve(approvalId) and pay(bookingId),
 * each resolving when the person has acted.
 * Returns the outcome in words and the ledger.
 */
export async function runScriptedAgent(client, intent, person) {
  const spent = ledger();
  const { tools } = await client.listTools();
  // What a host hands a model of each tool: its name, description and input schema.
  spent.definitionTokens += countTokens(
    JSON.stringify(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))),
  );
  const catalog = tools.some((tool) => tool.name === 'tool_catalog.call');
  // A tool listed by name is called by name (hotel-ops' contract tools sit beside the catalog).
  const listed = new Set(tools.map((tool) => tool.name));
  const viaCatalog = (name) => catalog && !listed.has(name);

  /**
   * One tool call; the text content is all the agent keeps. An answer lost on the way (the
   * connection dropped) is asked for again with the very same arguments — the same
   * idempotencyKey — as every write's description says.
   */
  async function call(name, args) {
    if (++spent.calls > MAX_CALLS) throw new Error(`over ${MAX_CALLS} calls`);
    const send = () =>
      viaCatalog(name)
        ? client.callTool({ name: 'tool_catalog.call', arguments: { tool: name, arguments: args } })
        : client.callTool({ name, arguments: args });
    const result = await send().catch(() => ((spent.calls += 1), send()));
    const text = result.content.map((part) => part.text ?? '').join('\n');
    spent.texts.push(text);
    spent.answerBytes += Buffer.byteLength(text);
    spent.answerTokens += countTokens(text);
    const code = errorCode(text);
    if (code) spent.errors[code] = (spent.errors[code] ?? 0) + 1;
    return text;
  }

  // In catalog mode the call tool's description gives the booking tools' arguments; any other
  // tool is searched for and its schema read, once, before its first call.
  const callDescription = tools.find((tool) => tool.name === 'tool_catalog.call')?.description ?? '';
  const known = new Set([...callDescription.matchAll(/^([a-z_]+)\(/gm)].map(([, name]) => name));
  const read = new Set();
  async function learn(name) {
    if (!viaCatalog(name) || known.has(name) || read.has(name)) return;
    read.add(name);
    const catalogRead = async (tool, args) => {
      spent.calls += 1;
      const result = await client.callTool({ name: tool, arguments: args });
      const text = result.content.map((part) => part.text ?? '').join('\n');
      spent.definitionTokens += countTokens(text);
      return text;
    };
    const found = await catalogRead('tool_catalog.search', { query: name.replaceAll('_', ' '), limit: 5 });
    if (!found.includes(`/${name} — `)) throw new Error(`the catalog does not list ${name}`);
    const schema = await catalogRead('tool_catalog.read', { tool: name, offset: 0, limit: 1000 });
    if (errorCode(schema)) throw new Error(`reading ${name}: ${schema.split('\n')[0]}`);
  }
  const use = async (name, args) => (await learn(name), call(name, args));

  // The task's policy is the agent's own rule: a request it forbids is refused before any call.
  const forbidden = policyForbids(intent);
  if (forbidden) return { outcome: `refused by policy: ${forbidden}`, ...spent };
  const act = { cancel, reschedule, triage, series, swap }[intent.do] ?? book;
  const outcome = await act(use, intent, person);
  return { outcome, ...spent };
}

/** What the task's policy forbids in this request, in words; null when it allows it. */
function policyForbids(intent) {
  const policy = intent.policy ?? {};
  if (policy.maxMinutes && intent.minutes > policy.maxMinutes)
    return `longer than ${policy.maxMinutes} minutes`;
  if (policy.customerRequired && !intent.customer) return 'no customer named';
  if (policy.forbidCancel && intent.do === 'cancel') return 'cancelling is not allowed';
  return null;
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

/**
 * Books: finds the time, holds it (or the first alternative a refusal offers), shows it to the
 * person and confirms. A hold that lapsed meanwhile is held again at the same time, once, as its
 * recovery says — the calendars and the time are already known, nothing is searched again.
 */
async function book(use, intent, person) {
  const calendarIds = await calendarsFor(use, intent.calendar);
  if (!calendarIds) return 'no calendar matches';
  const slot = intent.at
    ? await firstFreeAt(use, calendarIds, intent)
    : await firstFound(use, calendarIds, intent);
  if (typeof slot === 'string') return slot;
  const customer = intent.customer ? { customer: { name: intent.customer } } : {};
  let settled;
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const booking = await holdOrAlternative(use, { calendarIds, ...customer }, slot);
    if (typeof booking === 'string') return booking;
    if (!intent.confirm) return 'held';
    // The hold is shown to the user, who says go ahead (or takes their time).
    await person.review(booking);
    settled = await settle(use, 'confirm_booking', booking, person);
    if (!/Hold the slot again/.test(settled.recovery ?? '')) break;
  }
  return settled.outcome;
}

/** The first free start find_slots lists from the day the intent names. */
async function firstFound(use, calendarIds, intent) {
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
  return { start, end: new Date(Date.parse(start) + intent.minutes * 60_000).toISOString() };
}

/** The user named local times, in order of preference: the first check_availability calls free. */
async function firstFreeAt(use, calendarIds, intent) {
  const date = new Date(Date.now() + intent.daysAhead * DAY).toISOString().slice(0, 10);
  const checked = await use('check_availability', {
    calendarIds,
    date,
    times: intent.at,
    durationMinutes: intent.minutes,
  });
  const free = /^\s*- time: \S+, start: (\S+), end: (\S+),.* free: yes/m.exec(checked);
  return free ? { start: free[1], end: free[2] } : `none of ${intent.at.join(', ')} is free`;
}

/** Holds `slot`; taken meanwhile, the refusal offers the nearest free times: holds the first. */
async function holdOrAlternative(use, what, slot) {
  let held = await use('hold_slot', { ...what, ...slot, idempotencyKey: randomUUID() });
  if (errorCode(held) === 'SLOT_UNAVAILABLE' && /alternatives/.test(recovery(held) ?? '')) {
    const [alternative] = alternatives(held);
    if (!alternative) return 'taken, and no alternative offered';
    Object.assign(slot, alternative);
    held = await use('hold_slot', { ...what, ...slot, idempotencyKey: randomUUID() });
  }
  return bookingSummary(held) ?? `not held (${errorCode(held)})`;
}

/**
 * Hotel-ops: read the mail the goal names, then hand what it asks for to people — as task results
 * (V2), or as a route notice (V3: a message for information, or one a person must look at). A
 * correction the user gives after the first submission is submitted over it; the answer says
 * which tasks it withdrew. The contract's answers are a JSON envelope in the text; its code is in
 * `error.code`.
 */
async function triage(use, intent) {
  const envelope = (text) => JSON.parse(text.split('\n')[0]);
  const read = envelope(
    await use('th_hotel_list_message_conversation_messages', { source_message_id: intent.messageId }),
  );
  if (!read.success) return `mail unreadable (${read.error?.code})`;
  let outcome = 'nothing submitted';
  const submissions = intent.notice ? [intent.notice] : [intent.results, intent.corrected].filter(Boolean);
  for (const content of submissions) {
    const submitted = envelope(
      await use('th_hotel_submit_task_results', submissionOf(intent.messageId, content)),
    );
    if (!submitted.success) return `refused (${submitted.error?.code})`;
    const { accepted_count: accepted, superseded } = submitted.data;
    outcome = superseded
      ? `corrected: submitted ${accepted}, withdrew ${superseded.withdrawn_task_ids.length}`
      : `submitted ${accepted}`;
  }
  return outcome;
}

/** A V3 route notice (an object) with the message's id, or V2 task results (a list) in their order. */
function submissionOf(messageId, content) {
  if (!Array.isArray(content)) return { source_message: { source_message_id: messageId }, ...content };
  return {
    source_message_id: messageId,
    ai_task_results: content.map((result, i) => ({ source_event_index: i + 1, ...result })),
  };
}

/**
 * A recurring series: the first free start, repeated; occurrences a refusal says are taken get
 * the first alternative it offers for each (instead); then one confirmation for all of them.
 */
async function series(use, intent, person) {
  const calendarIds = await calendarsFor(use, intent.calendar);
  if (!calendarIds) return 'no calendar matches';
  const slot = await firstFound(use, calendarIds, intent);
  if (typeof slot === 'string') return slot;
  const ask = (instead) =>
    use('hold_series', {
      calendarIds,
      ...slot,
      repeat: intent.repeat,
      ...(intent.customer ? { customer: { name: intent.customer } } : {}),
      ...(instead.length ? { instead } : {}),
      idempotencyKey: randomUUID(),
    });
  let held = await ask([]);
  if (errorCode(held) === 'SLOT_UNAVAILABLE') held = await ask(occurrenceChoices(held));
  const [first] = bookingsListed(held);
  const version = Number(field(held, 'version'));
  if (!first || !version) return `not held (${errorCode(held)})`;
  await person.review(first);
  return (await settle(use, 'confirm_booking', { ...first, version }, person)).outcome;
}

/** `- occurrence: N` blocks of a refusal, each with its first alternative. */
function occurrenceChoices(text) {
  return text
    .split(/^\s*- occurrence: /m)
    .slice(1)
    .map((block) => ({ occurrence: Number(/^(\d+)/.exec(block)?.[1]), ...alternatives(block)[0] }))
    .filter((choice) => choice.occurrence && choice.start);
}

/** Swaps the times of two confirmed bookings as one change set, approved (and settled) once. */
async function swap(use, intent, person) {
  const listed = bookingsListed(await use('list_bookings', { status: 'CONFIRMED', limit: 20 }));
  if (listed.length < 2) return 'fewer than two bookings to swap';
  const read = async (id) => {
    const text = await use('get_booking', { bookingId: id });
    return {
      id,
      version: bookingSummary(text)?.version,
      start: field(text, 'start'),
      end: field(text, 'end'),
    };
  };
  const [a, b] = [await read(listed[0].id), await read(listed[1].id)];
  const move = (x, y) => ({
    kind: 'move',
    bookingId: x.id,
    expectedVersion: x.version,
    start: y.start,
    end: y.end,
  });
  const proposed = await use('propose_changes', {
    changes: [move(a, b), move(b, a)],
    idempotencyKey: randomUUID(),
  });
  const changeSetId = field(proposed, 'changeSetId');
  if (!changeSetId) return `not proposed (${errorCode(proposed)})`;
  const version = Number(field(proposed, 'version'));
  let approval;
  for (let round = 0; round < 4; round += 1) {
    const answer = await use('confirm_changes', {
      changeSetId,
      expectedVersion: version,
      idempotencyKey: randomUUID(),
      ...(approval ? { approval: { approvalId: approval } } : {}),
    });
    const code = errorCode(answer);
    if (!code) return String(field(answer, 'status')).toLowerCase();
    if (code !== 'APPROVAL_REQUIRED') return `refused (${code})`;
    approval = field(answer, 'approvalId');
    const decided = await person.approve(approval);
    if (decided !== 'approved') {
      await use('abandon_changes', { changeSetId, expectedVersion: version, idempotencyKey: randomUUID() });
      return `person ${decided}`;
    }
  }
  return 'gave up';
}

/** Moves a confirmed booking: the new time is held beside it, then confirmed with approval. */
async function reschedule(use, intent, person) {
  const [target] = bookingsListed(await use('list_bookings', { status: 'CONFIRMED', limit: 20 }));
  if (!target) return 'no booking to move';
  const current = await use('get_booking', { bookingId: target.id });
  const start = /^\s*start: (\S+)/m.exec(current)?.[1];
  const end = /^\s*end: (\S+)/m.exec(current)?.[1];
  if (!start || !end) return 'booking unreadable';
  const shift = intent.laterDays * DAY;
  const moved = await use('reschedule_booking', {
    bookingId: target.id,
    start: new Date(Date.parse(start) + shift).toISOString(),
    end: new Date(Date.parse(end) + shift).toISOString(),
    idempotencyKey: randomUUID(),
  });
  const booking = bookingSummary(moved);
  if (!booking) return `not moved (${errorCode(moved)})`;
  return (await settle(use, 'confirm_booking', booking, person)).outcome;
}

async function cancel(use, intent, person) {
  const listed = bookingsListed(
    await use('list_bookings', { status: intent.status ?? 'CONFIRMED', limit: 20 }),
  );
  const target = listed.find((b) => b.reference === intent.reference) ?? listed[0];
  if (!target) return 'no booking to cancel';
  const booking = bookingSummary(await use('get_booking', { bookingId: target.id }));
  if (!booking) return 'booking unreadable';
  return (await settle(use, 'cancel_booking', booking, person)).outcome;
}

/**
 * confirm_booking or cancel_booking until it is done or a person said no: on
 * APPROVAL_REQUIRED the person is asked and the call retried with the approval; on
 * PAYMENT_PENDING the person pays and the call is retried; an approval the recovery says to ask
 * for anew (it lapsed) is asked for again; anything else ends the task, with its recovery.
 */
async function settle(use, tool, booking, person) {
  let approval;
  for (let round = 0; round < 6; round += 1) {
    const answer = await use(tool, {
      bookingId: booking.id,
      expectedVersion: booking.version,
      idempotencyKey: randomUUID(),
      ...(approval ? { approval: { approvalId: approval } } : {}),
    });
    const done = bookingSummary(answer);
    if (done) return { outcome: done.status.toLowerCase() };
    const code = errorCode(answer);
    if (code === 'APPROVAL_REQUIRED') {
      approval = field(answer, 'approvalId');
      const decided = await person.approve(approval);
      // Too late: the call with the lapsed approval says what to do next.
      if (decided === 'too late') continue;
      if (decided !== 'approved') {
        // The person said no: give the time back instead of leaving it held.
        if (tool === 'confirm_booking')
          await use('release_hold', {
            bookingId: booking.id,
            expectedVersion: booking.version,
            idempotencyKey: randomUUID(),
          });
        return { outcome: `person ${decided}` };
      }
    } else if (code === 'PAYMENT_PENDING') {
      // Not paid yet: the booking stays held until the person has paid; nothing is confirmed.
      // Paid where the answer says: a series is paid once, under its own id.
      const payable = /\/pay\/(\S+)$/.exec(field(answer, 'paymentUrl') ?? '')?.[1] ?? booking.id;
      if ((await person.pay(payable)) !== 'paid') return { outcome: 'held, awaiting payment' };
    } else if (approval && /again without approval/.test(recovery(answer) ?? '')) {
      approval = undefined;
    } else return { outcome: `refused (${code})`, recovery: recovery(answer) };
  }
  return { outcome: 'gave up' };
}
