import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addPerson } from '../../../src/app/identity/people.js';
import { ingestMessage } from '../../../src/app/inbox/ingest.js';
import { submitTaskResults } from '../../../src/app/inbox/submit-results.js';
import { rejectTask } from '../../../src/app/inbox/tasks.js';
import type { Person } from '../../../src/domain/identity/identity.js';
import { adaptSubmitPayload } from '../../../src/domain/inbox/submit-payload.js';
import type { SubmitAdapted } from '../../../src/domain/inbox/submit-payload.js';
import { appHarness, operator } from '../../support/app-harness.js';
import { InboxError } from '../../../src/domain/inbox/inbox-errors.js';

// One source message, results submitted for it again: the same content replays, other content
// replaces results nobody acted on, and is refused once a person did.
const T0 = Date.UTC(2026, 10, 3, 9, 0);
let h: Awaited<ReturnType<typeof appHarness>>;
let ana: Person;

const event = (id: string, groupCode: string) => ({
  event_id: id,
  event_type: 'reservation.create',
  case_keys: { group_code: groupCode, confirmation_number: null, reservation_no: null },
  booking: { calendar_id: 'cal_x', start: '2026-11-20T14:00:00Z', end: '2026-11-22T11:00:00Z' },
});

function adapted(events: unknown[]): SubmitAdapted {
  const result = adaptSubmitPayload({
    source_message: {
      source_message_id: 'm-1',
      subject: 'Group block',
      from: 'sales@acme.example',
      cc: [],
      received_at: '2026-06-01T09:00:00Z',
      source_channel: 'Email',
    },
    message_events: events,
    case_candidates: [],
    extraction_warnings: [],
    unhandled_current_intents: [],
  });
  if (!result.ok) throw new Error(result.message);
  return result;
}

const submit = (events: unknown[]) => submitTaskResults(h.deps, operator, adapted(events), {});
/** The InboxError a submission was refused with; fails when it succeeded or threw anything else. */
async function refusal(promise: Promise<unknown>): Promise<InboxError> {
  const outcome = await promise.then(
    () => null,
    (error: unknown) => error,
  );
  if (outcome instanceof InboxError) return outcome;
  throw outcome ?? new Error('expected a refusal, but the submission succeeded');
}

const rows = () => h.deps.store.read((tx) => tx.inbox.rowCounts('t1'));
const taskIds = (answer: { items: readonly { task_id: string | null }[] }) =>
  answer.items.map((i) => i.task_id).filter((id): id is string => id !== null);

beforeEach(async () => {
  h = await appHarness(T0);
  ana = await addPerson(h.deps, { tenantId: 't1', email: 'ana@example.com', role: 'approver' });
  await ingestMessage(h.deps, 't1', {
    provider: 'AGENTBUS',
    channel: 'EMAIL',
    externalId: 'm-1',
    externalConversationId: null,
    rfcMessageId: '<m-1@hotel.example>',
    inReplyTo: null,
    references: [],
    subject: 'Group block',
    from: 'sales@acme.example',
    cc: [],
    receivedAt: T0,
    textBody: 'Please hold 12 rooms for ACME-0412.',
    htmlSanitized: null,
    raw: new TextEncoder().encode('raw'),
  });
});

afterEach(async () => {
  await h.close();
});

describe('submitting results for a message again', () => {
  it('the same content replays the stored answer and writes nothing', async () => {
    const first = await submit([event('E1', 'ACME-0412')]);
    expect(first).toMatchObject({ idempotent_replay: false, superseded: null, accepted_count: 1 });
    const before = await rows();
    const again = await submit([event('E1', 'ACME-0412')]);
    expect(again).toEqual({ ...first, idempotent_replay: true });
    expect(await rows()).toEqual(before);
  });

  it('other content replaces results nobody decided: the earlier tasks are withdrawn and named', async () => {
    const first = await submit([event('E1', 'ACME-0412'), event('E2', 'ACME-0413')]);
    const corrected = await submit([event('E1', 'ACME-0999')]);
    expect(corrected.idempotent_replay).toBe(false);
    expect(corrected.batch_id).not.toBe(first.batch_id);
    expect(corrected.superseded).toEqual({ batch_id: first.batch_id, withdrawn_task_ids: taskIds(first) });
    for (const id of taskIds(first))
      expect(await h.deps.store.read((tx) => tx.inbox.task('t1', id))).toBeNull();
    expect((await rows()).inbox_tasks).toBe(1);
    // The corrected content is now the one that replays.
    expect((await submit([event('E1', 'ACME-0999')])).batch_id).toBe(corrected.batch_id);
  });

  it('once a person decided one of its tasks, other content is refused naming it, and nothing changes', async () => {
    const first = await submit([event('E1', 'ACME-0412'), event('E2', 'ACME-0413')]);
    const [decided] = taskIds(first);
    await rejectTask(h.deps, ana, decided!, 1, 'not ours');
    const before = await rows();
    const refused = await refusal(submit([event('E1', 'ACME-0999')]));
    expect(refused).toMatchObject({
      code: 'RESULTS_ALREADY_DECIDED',
      details: { batch_id: first.batch_id, decided_task_ids: [decided] },
    });
    expect(await rows()).toEqual(before);
    expect((await submit([event('E1', 'ACME-0412'), event('E2', 'ACME-0413')])).idempotent_replay).toBe(true);
  });

  it('says why a create has no order id yet', async () => {
    const first = await submit([
      event('E1', 'ACME-0412'),
      { event_id: 'E2', event_type: 'reservation.teleport' },
    ]);
    expect(first.items.map((i) => [i.order_id, i.order_id_reason])).toEqual([
      [null, 'pending_confirmation'],
      [null, 'contract_error'],
    ]);
  });
});
