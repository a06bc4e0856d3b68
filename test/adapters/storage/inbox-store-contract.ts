import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KeyKind, KeyRow } from '../../../src/domain/booking/business-keys.js';
import type { Tenant, ToolProfile } from '../../../src/domain/identity/identity.js';
import { defaultTenantLimits } from '../../../src/domain/identity/identity.js';
import type {
  BodyRead,
  Conversation,
  InboxMessage,
  InboxTask,
  IngestToken,
  SubmitBatch,
  TaskStatus,
} from '../../../src/domain/inbox/inbox.js';
import { TASK_STATUSES } from '../../../src/domain/inbox/inbox.js';
import type { InboxStore, Store } from '../../../src/ports/store/index.js';

// The InboxStore port, run on every engine: messages, conversations, body reads, batches, tasks,
// business keys and ingest tokens, each member with one tenant never seeing another's rows.

/** What each engine provides to run the inbox contract. */
export interface InboxHarness {
  readonly store: Store;
  /** The raw bytes kept for a message, read with plain SQL: no store method returns them. */
  rawBody(messageId: string): Promise<Uint8Array | null>;
  close(): Promise<void>;
}

const T0 = Date.UTC(2030, 0, 7, 9);
const MIN = 60_000;
const H = 60 * MIN;

/** Written into every raw body; no field of a message read back may carry it. */
const RAW_MARKER = 'RAW-BYTES-7f3c9a';
const rawOf = (id: string): Uint8Array =>
  new Uint8Array([...new TextEncoder().encode(`${RAW_MARKER} ${id}\r\n`), 0x00, 0xff, 0xfe]);

const conversation = (id: string, fields: Partial<Conversation> = {}): Conversation => ({
  id,
  tenantId: 't1',
  provider: 'AGENTBUS',
  channel: 'EMAIL',
  externalId: `thread-${id}`,
  subject: 'Group block, March',
  createdAt: T0,
  lastReceivedAt: T0,
  ...fields,
});

const message = (id: string, conversationId: string, fields: Partial<InboxMessage> = {}): InboxMessage => ({
  id,
  tenantId: 't1',
  provider: 'AGENTBUS',
  channel: 'EMAIL',
  externalId: `ext-${id}`,
  conversationId,
  rfcMessageId: `<${id}@mail.example>`,
  inReplyTo: null,
  references: [],
  subject: 'Re: Group block, March',
  from: 'desk@hotel.example',
  cc: [],
  receivedAt: T0,
  textBody: `Body of ${id}`,
  htmlSanitized: null,
  createdAt: T0,
  ...fields,
});

/** The batch a message's tasks belong to (one per message). */
const batch = (m: InboxMessage, fields: Partial<SubmitBatch> = {}): SubmitBatch => ({
  id: `bat_${m.id}`,
  tenantId: m.tenantId,
  messageId: m.id,
  shape: 'agentbus.v1',
  result: { items: [] },
  contentDigest: null,
  submittedBy: 'connection:conn_1',
  createdAt: T0,
  ...fields,
});

const task = (id: string, m: InboxMessage, fields: Partial<InboxTask> = {}): InboxTask => ({
  id,
  tenantId: m.tenantId,
  batchId: `bat_${m.id}`,
  messageId: m.id,
  conversationId: m.conversationId,
  transitionId: `tr_${id}`,
  kind: 'task',
  sourceEventIndex: 0,
  resultType: 'normal_task',
  eventType: 'booking_confirmed',
  taskType: 'confirm_booking',
  status: 'PENDING_CONFIRMATION',
  objectId: null,
  approvalId: null,
  detail: { summary: `task ${id}` },
  decidedBy: null,
  decidedAt: null,
  note: null,
  version: 1,
  createdAt: T0,
  ...fields,
});

const caseKeys = (keys: Record<string, unknown>) => ({ detail: { case_keys: keys } });

const bodyRead = (id: string, messageId: string, fields: Partial<BodyRead> = {}): BodyRead => ({
  id,
  tenantId: 't1',
  messageId,
  reader: 'person:usr_ana',
  via: 'console:message',
  readAt: T0,
  ...fields,
});

const token = (id: string, fields: Partial<IngestToken> = {}): IngestToken => ({
  id,
  tenantId: 't1',
  name: `mailbox ${id}`,
  createdAt: T0,
  expiresAt: null,
  revokedAt: null,
  lastUsedAt: null,
  ...fields,
});

const key = (kind: KeyKind, value: string): KeyRow => ({ kind, value });

const ids = (rows: readonly { id: string }[]) => rows.map((r) => r.id);
const sortedIds = (rows: readonly { id: string }[]) => ids(rows).sort();
const sorted = (values: readonly string[]) => [...values].sort();

export function inboxStoreContract(name: string, make: () => Promise<InboxHarness>): void {
  describe(`InboxStore contract: ${name}`, () => {
    let harness: InboxHarness;
    let store: Store;
    beforeEach(async () => {
      harness = await make();
      store = harness.store;
    });
    afterEach(() => harness.close());

    const read = <T>(work: (inbox: InboxStore) => Promise<T>) => store.read((tx) => work(tx.inbox));
    const write = <T>(work: (inbox: InboxStore) => Promise<T>) => store.write((tx) => work(tx.inbox));

    async function addConversations(...conversations: Conversation[]) {
      await write(async (inbox) => {
        for (const c of conversations) expect(await inbox.insertConversation(c)).toBe(true);
      });
    }
    async function addMessages(...messages: InboxMessage[]) {
      await write(async (inbox) => {
        for (const m of messages) expect(await inbox.insertMessage(m, rawOf(m.id))).toBe(true);
      });
    }
    /** The message's batch and these tasks of it, in one write. */
    async function submit(m: InboxMessage, tasks: InboxTask[]) {
      await write(async (inbox) => {
        expect(await inbox.insertBatch(batch(m))).toBe(true);
        await inbox.insertTasks(tasks);
      });
    }

    describe('messages', () => {
      it('insertMessage: once per tenant, provider, channel and external id; read back exactly', async () => {
        await addConversations(conversation('conv_a'), conversation('conv_t2', { tenantId: 't2' }));
        const m = message('msg_1', 'conv_a', {
          inReplyTo: '<msg_0@mail.example>',
          references: ['<msg_0@mail.example>', '<older@mail.example>'],
          cc: ['ops@hotel.example', 'sales@hotel.example'],
          subject: 'Zoë: 3 rooms "twin"',
          htmlSanitized: '<p>Three rooms</p>',
          textBody: 'Zoë — three rooms, 12–14 March',
          receivedAt: T0 + MIN,
          createdAt: T0 + 2 * MIN,
        });
        expect(await write((inbox) => inbox.insertMessage(m, rawOf(m.id)))).toBe(true);
        // The same provider message again, under a new internal id: nothing is added or changed.
        const again = { ...m, id: 'msg_1_again', textBody: 'changed' };
        expect(await write((inbox) => inbox.insertMessage(again, rawOf(again.id)))).toBe(false);
        expect(await read((inbox) => inbox.message('t1', 'msg_1_again'))).toBeNull();
        expect(await read((inbox) => inbox.message('t1', 'msg_1'))).toEqual(m);
        expect(
          await read((inbox) => inbox.messageByExternal('t1', 'AGENTBUS', 'EMAIL', m.externalId)),
        ).toEqual(m);

        // Only the whole key is unique: another channel, provider or tenant may reuse the external id.
        const otherChannel = message('msg_2', 'conv_a', { externalId: m.externalId, channel: 'OUTLOOK' });
        const otherProvider = message('msg_3', 'conv_a', { externalId: m.externalId, provider: 'EML' });
        const otherTenant = message('msg_t2', 'conv_t2', { tenantId: 't2', externalId: m.externalId });
        await addMessages(otherChannel, otherProvider, otherTenant);
        const byExternal = (tenantId: string, provider: string, channel: string) =>
          read((inbox) => inbox.messageByExternal(tenantId, provider, channel, m.externalId));
        expect(await byExternal('t1', 'AGENTBUS', 'OUTLOOK')).toEqual(otherChannel);
        expect(await byExternal('t1', 'EML', 'EMAIL')).toEqual(otherProvider);
        expect(await byExternal('t2', 'AGENTBUS', 'EMAIL')).toEqual(otherTenant);
        expect(await byExternal('t1', 'EML', 'OUTLOOK')).toBeNull();
        expect(await byExternal('t3', 'AGENTBUS', 'EMAIL')).toBeNull();
        expect(
          await read((inbox) => inbox.messageByExternal('t1', 'AGENTBUS', 'EMAIL', 'ext-unknown')),
        ).toBeNull();
      });

      it('insertMessage keeps the raw bytes apart, exactly as given; no message read carries them', async () => {
        await addConversations(conversation('conv_a'));
        const m = message('msg_1', 'conv_a');
        const raw = rawOf('msg_1');
        expect(await write((inbox) => inbox.insertMessage(m, raw))).toBe(true);
        expect(await write((inbox) => inbox.insertMessage({ ...m, id: 'msg_dup' }, rawOf('msg_dup')))).toBe(
          false,
        );
        expect([...((await harness.rawBody('msg_1')) ?? [])]).toEqual([...raw]);
        expect(await harness.rawBody('msg_dup')).toBeNull();

        const seen = await read(async (inbox) => [
          await inbox.message('t1', 'msg_1'),
          await inbox.messageByExternal('t1', 'AGENTBUS', 'EMAIL', m.externalId),
          ...(await inbox.messagesWithExternalId('t1', m.externalId, 10)),
          await inbox.messageByRfcIds('t1', [m.rfcMessageId!]),
          ...(await inbox.messagesOf('t1', 'conv_a')),
        ]);
        expect(seen).toHaveLength(5);
        for (const found of seen) {
          expect(found).toEqual(m);
          expect(JSON.stringify(found)).not.toContain(RAW_MARKER);
        }
      });

      it('messagesWithExternalId: any provider or channel, earliest received first, at most `limit`, one tenant', async () => {
        await addConversations(conversation('conv_a'), conversation('conv_t2', { tenantId: 't2' }));
        await addMessages(
          message('msg_x1', 'conv_a', { externalId: 'shared', receivedAt: T0 + 3 * MIN }),
          message('msg_x2', 'conv_a', { externalId: 'shared', provider: 'EML', receivedAt: T0 + MIN }),
          message('msg_x3', 'conv_a', { externalId: 'shared', channel: 'OUTLOOK', receivedAt: T0 + 2 * MIN }),
          message('msg_other', 'conv_a', { externalId: 'other', receivedAt: T0 }),
          message('msg_t2', 'conv_t2', { tenantId: 't2', externalId: 'shared', receivedAt: T0 }),
        );
        const withId = (tenantId: string, externalId: string, limit: number) =>
          read((inbox) => inbox.messagesWithExternalId(tenantId, externalId, limit)).then(ids);
        expect(await withId('t1', 'shared', 10)).toEqual(['msg_x2', 'msg_x3', 'msg_x1']);
        expect(await withId('t1', 'shared', 2)).toEqual(['msg_x2', 'msg_x3']);
        expect(await withId('t1', 'shared', 1)).toEqual(['msg_x2']);
        expect(await withId('t1', 'other', 10)).toEqual(['msg_other']);
        expect(await withId('t1', 'unknown', 10)).toEqual([]);
        expect(await withId('t2', 'shared', 10)).toEqual(['msg_t2']);
      });

      it("message and messageByRfcIds: one tenant's messages; the earliest received carrying one of the ids", async () => {
        await addConversations(conversation('conv_a'), conversation('conv_t2', { tenantId: 't2' }));
        const late = message('msg_1', 'conv_a', { rfcMessageId: '<late@x>', receivedAt: T0 + 5 * MIN });
        const early = message('msg_2', 'conv_a', { rfcMessageId: '<early@x>', receivedAt: T0 + MIN });
        const none = message('msg_3', 'conv_a', { rfcMessageId: null, receivedAt: T0 });
        const theirs = message('msg_t2', 'conv_t2', {
          tenantId: 't2',
          rfcMessageId: '<late@x>',
          receivedAt: T0,
        });
        await addMessages(late, early, none, theirs);

        expect(await read((inbox) => inbox.message('t1', 'msg_1'))).toEqual(late);
        expect(await read((inbox) => inbox.message('t2', 'msg_1'))).toBeNull();
        expect(await read((inbox) => inbox.message('t1', 'msg_t2'))).toBeNull();
        expect(await read((inbox) => inbox.message('t1', 'msg_unknown'))).toBeNull();

        const byRfc = (tenantId: string, rfcIds: string[]) =>
          read((inbox) => inbox.messageByRfcIds(tenantId, rfcIds));
        expect(await byRfc('t1', ['<late@x>', '<early@x>'])).toEqual(early);
        expect(await byRfc('t1', ['<late@x>'])).toEqual(late);
        expect(await byRfc('t1', ['<nope@x>', '<late@x>'])).toEqual(late);
        expect(await byRfc('t1', ['<nope@x>'])).toBeNull();
        expect(await byRfc('t1', [])).toBeNull();
        // t2's copy was received earliest of all, yet t1 never sees it.
        expect(await byRfc('t2', ['<late@x>', '<early@x>'])).toEqual(theirs);
      });

      it("messagesOf: one conversation's messages by received time, then id", async () => {
        await addConversations(conversation('conv_a'), conversation('conv_b'));
        await addMessages(
          message('msg_c', 'conv_a', { receivedAt: T0 + 2 * MIN }),
          message('msg_b', 'conv_a', { receivedAt: T0 + MIN }),
          message('msg_a', 'conv_a', { receivedAt: T0 + 2 * MIN }),
          message('msg_0', 'conv_b', { receivedAt: T0 }),
        );
        expect(ids(await read((inbox) => inbox.messagesOf('t1', 'conv_a')))).toEqual([
          'msg_b',
          'msg_a',
          'msg_c',
        ]);
        expect(ids(await read((inbox) => inbox.messagesOf('t1', 'conv_b')))).toEqual(['msg_0']);
        expect(await read((inbox) => inbox.messagesOf('t2', 'conv_a'))).toEqual([]);
        expect(await read((inbox) => inbox.messagesOf('t1', 'conv_unknown'))).toEqual([]);
      });
    });

    describe('conversations', () => {
      it('insertConversation once per key; conversation and conversationByKey, narrowed by provider and channel', async () => {
        const c1 = conversation('conv_1', { externalId: 'thread-9', createdAt: T0 });
        const c2 = conversation('conv_2', {
          externalId: 'thread-9',
          channel: 'OUTLOOK',
          createdAt: T0 + MIN,
        });
        const c3 = conversation('conv_3', {
          externalId: 'thread-9',
          provider: 'EML',
          createdAt: T0 + 2 * MIN,
        });
        const other = conversation('conv_4', { externalId: 'thread-1', subject: null });
        const theirs = conversation('conv_t2', { tenantId: 't2', externalId: 'thread-9' });
        await addConversations(c1, c2, c3, other, theirs);
        expect(
          await write((inbox) => inbox.insertConversation({ ...c1, id: 'conv_1_again', subject: 'changed' })),
        ).toBe(false);
        expect(await read((inbox) => inbox.conversation('t1', 'conv_1_again'))).toBeNull();

        expect(await read((inbox) => inbox.conversation('t1', 'conv_1'))).toEqual(c1);
        expect(await read((inbox) => inbox.conversation('t1', 'conv_4'))).toEqual(other);
        expect(await read((inbox) => inbox.conversation('t2', 'conv_1'))).toBeNull();
        expect(await read((inbox) => inbox.conversation('t1', 'conv_t2'))).toBeNull();

        const byKey = (tenantId: string, provider?: string, channel?: string, externalId = 'thread-9') =>
          read((inbox) =>
            inbox.conversationByKey(tenantId, {
              externalId,
              ...(provider === undefined ? {} : { provider }),
              ...(channel === undefined ? {} : { channel }),
            }),
          ).then((found) => [...found].sort((a, b) => a.id.localeCompare(b.id)));
        expect(await byKey('t1', 'AGENTBUS', 'EMAIL')).toEqual([c1]);
        expect(await byKey('t1', 'AGENTBUS')).toEqual([c1, c2]);
        expect(await byKey('t1', undefined, 'EMAIL')).toEqual([c1, c3]);
        expect(await byKey('t1', 'EML', 'OUTLOOK')).toEqual([]);
        expect(await byKey('t1', undefined, undefined, 'thread-1')).toEqual([other]);
        expect(await byKey('t1', undefined, undefined, 'thread-unknown')).toEqual([]);
        expect(await byKey('t2')).toEqual([theirs]);
        // Three match without narrowing: at most two come back (enough to tell it is ambiguous).
        const wide = await byKey('t1');
        expect(wide).toHaveLength(2);
        expect(new Set(ids(wide)).size).toBe(2);
        for (const c of wide) expect([c1, c2, c3]).toContainEqual(c);
      });

      it('touchConversation moves the last-received time forward, never back, in its tenant only', async () => {
        const c = conversation('conv_1', { createdAt: T0, lastReceivedAt: T0 + 10 * MIN });
        await addConversations(c);
        const touch = (tenantId: string, at: number) =>
          write((inbox) => inbox.touchConversation(tenantId, 'conv_1', at));
        const current = () => read((inbox) => inbox.conversation('t1', 'conv_1'));

        await touch('t1', T0 + 20 * MIN);
        expect(await current()).toEqual({ ...c, lastReceivedAt: T0 + 20 * MIN });
        await touch('t1', T0 + 15 * MIN);
        expect(await current()).toEqual({ ...c, lastReceivedAt: T0 + 20 * MIN });
        await touch('t1', T0 + 20 * MIN);
        expect(await current()).toEqual({ ...c, lastReceivedAt: T0 + 20 * MIN });
        await touch('t2', T0 + 60 * MIN);
        expect(await current()).toEqual({ ...c, lastReceivedAt: T0 + 20 * MIN });
        await touch('t1', T0 + 20 * MIN + 1);
        expect(await current()).toEqual({ ...c, lastReceivedAt: T0 + 20 * MIN + 1 });
      });

      it('recentConversations: newest first, with their messages and the tasks that wait for a person', async () => {
        const cOld = conversation('conv_old', { lastReceivedAt: T0 + MIN });
        const cMid = conversation('conv_mid', { lastReceivedAt: T0 + 2 * MIN });
        const cNew = conversation('conv_new', { lastReceivedAt: T0 + 3 * MIN });
        const cT2 = conversation('conv_t2', { tenantId: 't2', lastReceivedAt: T0 + 9 * MIN });
        await addConversations(cOld, cMid, cNew, cT2);
        const mNew = message('msg_new', 'conv_new');
        const mMid1 = message('msg_mid1', 'conv_mid');
        const mMid2 = message('msg_mid2', 'conv_mid');
        const mT2 = message('msg_t2', 'conv_t2', { tenantId: 't2' });
        await addMessages(mNew, mMid1, mMid2, mT2);
        await submit(mNew, [
          task('tsk_pending', mNew, { status: 'PENDING_CONFIRMATION' }),
          task('tsk_awaiting', mNew, { status: 'AWAITING_APPROVAL' }),
          task('tsk_error', mNew, { status: 'CONTRACT_ERROR', kind: 'adapter_contract_error' }),
          task('tsk_confirmed', mNew, { status: 'CONFIRMED' }),
          task('tsk_rejected', mNew, { status: 'REJECTED' }),
        ]);
        await submit(mMid1, [task('tsk_mid', mMid1, { status: 'CONFIRMED' })]);
        await submit(mT2, [task('tsk_t2', mT2)]);

        const recent = (tenantId: string, limit: number) =>
          read((inbox) => inbox.recentConversations(tenantId, limit));
        expect(await recent('t1', 10)).toEqual([
          { conversation: cNew, openTasks: 3, messages: 1 },
          { conversation: cMid, openTasks: 0, messages: 2 },
          { conversation: cOld, openTasks: 0, messages: 0 },
        ]);
        expect((await recent('t1', 2)).map((r) => r.conversation.id)).toEqual(['conv_new', 'conv_mid']);
        expect(await recent('t2', 10)).toEqual([{ conversation: cT2, openTasks: 1, messages: 1 }]);
        expect(await recent('t3', 10)).toEqual([]);

        // A new message in the oldest conversation brings it to the top.
        await write((inbox) => inbox.touchConversation('t1', 'conv_old', T0 + 5 * MIN));
        expect((await recent('t1', 10)).map((r) => r.conversation.id)).toEqual([
          'conv_old',
          'conv_new',
          'conv_mid',
        ]);
      });
    });

    it('recordBodyReads records several at once, an empty list is no write; bodyReadsOf by read time, then id', async () => {
      await addConversations(conversation('conv_a'));
      await addMessages(message('msg_1', 'conv_a'), message('msg_2', 'conv_a'));
      const r1 = bodyRead('read_1', 'msg_1', { readAt: T0 + MIN });
      const r2 = bodyRead('read_2', 'msg_1', {
        readAt: T0 + 2 * MIN,
        reader: 'connection:conn_1',
        via: 'read_message',
      });
      const r3 = bodyRead('read_3', 'msg_1', { readAt: T0 + 2 * MIN });
      // Read last, though its id sorts first.
      const r0 = bodyRead('read_0', 'msg_1', { readAt: T0 + 3 * MIN });
      const r4 = bodyRead('read_4', 'msg_2', { readAt: T0 });
      const rT2 = bodyRead('read_t2', 'msg_1', { tenantId: 't2', readAt: T0 });
      await write((inbox) => inbox.recordBodyReads([r3, r0, r1, rT2, r2, r4]));

      expect(await read((inbox) => inbox.bodyReadsOf('t1', 'msg_1'))).toEqual([r1, r2, r3, r0]);
      expect(await read((inbox) => inbox.bodyReadsOf('t1', 'msg_2'))).toEqual([r4]);
      expect(await read((inbox) => inbox.bodyReadsOf('t2', 'msg_1'))).toEqual([rT2]);
      expect(await read((inbox) => inbox.bodyReadsOf('t1', 'msg_unknown'))).toEqual([]);

      await expect(write((inbox) => inbox.recordBodyReads([]))).resolves.toBeUndefined();
      expect(await read((inbox) => inbox.bodyReadsOf('t1', 'msg_1'))).toEqual([r1, r2, r3, r0]);
    });

    it('insertBatch once per message (a second submission loses); batchOf returns its result as given', async () => {
      await addConversations(conversation('conv_a'), conversation('conv_t2', { tenantId: 't2' }));
      const m = message('msg_1', 'conv_a');
      const mT2 = message('msg_t2', 'conv_t2', { tenantId: 't2' });
      await addMessages(m, mT2);
      const b = batch(m, {
        result: {
          items: [
            { index: 0, transition: 'tr_1', status: 'PENDING_CONFIRMATION', keys: { group_code: 'GRP-7' } },
          ],
          diagnostics: [],
          accepted: true,
          count: 2,
          ratio: 0.5,
          note: null,
          text: 'Zoë "quoted" \\ back-slashed ✓',
        },
        submittedBy: 'connection:conn_1',
        createdAt: T0 + MIN,
      });
      expect(await write((inbox) => inbox.insertBatch(b))).toBe(true);
      const late = batch(m, { id: 'bat_late', result: { items: [] }, submittedBy: 'connection:conn_2' });
      expect(await write((inbox) => inbox.insertBatch(late))).toBe(false);
      expect(await read((inbox) => inbox.batchOf('t1', 'msg_1'))).toEqual(b);

      const theirs = batch(mT2);
      expect(await write((inbox) => inbox.insertBatch(theirs))).toBe(true);
      expect(await read((inbox) => inbox.batchOf('t2', 'msg_t2'))).toEqual(theirs);
      expect(await read((inbox) => inbox.batchOf('t2', 'msg_1'))).toBeNull();
      expect(await read((inbox) => inbox.batchOf('t1', 'msg_t2'))).toBeNull();
      expect(await read((inbox) => inbox.batchOf('t1', 'msg_unknown'))).toBeNull();
    });

    describe('tasks', () => {
      it("insertTasks and task: read back exactly, never another tenant's", async () => {
        await addConversations(conversation('conv_a'));
        const m = message('msg_1', 'conv_a');
        await addMessages(m);
        const plain = task('tsk_1', m);
        const full = task('tsk_2', m, {
          kind: 'adapter_contract_error',
          sourceEventIndex: 3,
          resultType: 'manual_review',
          eventType: null,
          taskType: null,
          status: 'CONTRACT_ERROR',
          objectId: 'ORDER:bk_1',
          approvalId: 'apr_1',
          detail: {
            case_keys: { group_code: 'GRP-7', confirmation_number: 'CNF-1' },
            problems: [{ path: '/events/3', message: 'unsupported event "x"' }],
            nested: { n: 1.5, flag: false, none: null },
          },
          decidedBy: 'person:usr_ana',
          decidedAt: T0 + 5 * MIN,
          note: 'Zoë called back',
          version: 4,
          createdAt: T0 + MIN,
        });
        await submit(m, [plain, full]);
        expect(await read((inbox) => inbox.task('t1', 'tsk_1'))).toEqual(plain);
        expect(await read((inbox) => inbox.task('t1', 'tsk_2'))).toEqual(full);
        expect(await read((inbox) => inbox.task('t2', 'tsk_1'))).toBeNull();
        expect(await read((inbox) => inbox.task('t1', 'tsk_unknown'))).toBeNull();
        // Only a task that waits for the approval is found by it.
        expect(await read((inbox) => inbox.taskAwaitingApproval('t1', 'apr_1'))).toBeNull();
        const waiting = task('tsk_3', m, {
          status: 'AWAITING_APPROVAL',
          objectId: 'ORDER:bk_2',
          approvalId: 'apr_2',
        });
        await write((inbox) => inbox.insertTasks([waiting]));
        expect(await read((inbox) => inbox.taskAwaitingApproval('t1', 'apr_2'))).toEqual(waiting);
        expect(await read((inbox) => inbox.taskAwaitingApproval('t2', 'apr_2'))).toBeNull();
      });

      it('tasksOfBatch by id; supersedeBatch removes the earlier tasks and makes the row the next batch, once', async () => {
        await addConversations(conversation('conv_a'));
        const m = message('msg_1', 'conv_a');
        const other = message('msg_2', 'conv_a');
        await addMessages(m, other);
        await submit(m, [task('tsk_2', m), task('tsk_1', m)]);
        await submit(other, [task('tsk_9', other)]);
        const earlier = (await read((inbox) => inbox.batchOf('t1', 'msg_1')))!;
        const idsOf = async (tenant: string, batchId: string) =>
          (await read((inbox) => inbox.tasksOfBatch(tenant, batchId))).map((t) => t.id);
        expect(await idsOf('t1', earlier.id)).toEqual(['tsk_1', 'tsk_2']);
        expect(await idsOf('t2', earlier.id)).toEqual([]);

        const next = batch(m, {
          id: 'bat_next',
          result: { items: ['corrected'] },
          contentDigest: 'sha256:next',
          createdAt: T0 + MIN,
        });
        expect(await write((inbox) => inbox.supersedeBatch(earlier, next))).toBe(true);
        expect(await read((inbox) => inbox.batchOf('t1', 'msg_1'))).toEqual(next);
        expect(await idsOf('t1', earlier.id)).toEqual([]);
        expect(await read((inbox) => inbox.task('t1', 'tsk_1'))).toBeNull();
        // Another message's batch and tasks are untouched.
        expect(await idsOf('t1', 'bat_msg_2')).toEqual(['tsk_9']);
        // The earlier batch is gone: superseding it again changes nothing.
        expect(await write((inbox) => inbox.supersedeBatch(earlier, batch(m, { id: 'bat_third' })))).toBe(
          false,
        );
        expect(await read((inbox) => inbox.batchOf('t1', 'msg_1'))).toEqual(next);
        await write((inbox) => inbox.insertTasks([task('tsk_3', m, { batchId: 'bat_next' })]));
        expect(await idsOf('t1', 'bat_next')).toEqual(['tsk_3']);
      });

      it("tasksOfConversation: by the message's received time, then the task's created time, then id", async () => {
        await addConversations(conversation('conv_a'), conversation('conv_b'));
        const late = message('msg_1', 'conv_a', { receivedAt: T0 + 2 * MIN });
        const early = message('msg_2', 'conv_a', { receivedAt: T0 + MIN });
        const elsewhere = message('msg_3', 'conv_b', { receivedAt: T0 });
        await addMessages(late, early, elsewhere);
        await submit(late, [task('tsk_a', late, { createdAt: T0 + 10 * MIN })]);
        await submit(early, [
          task('tsk_d', early, { createdAt: T0 + 30 * MIN }),
          task('tsk_c', early, { createdAt: T0 + 20 * MIN }),
          task('tsk_b', early, { createdAt: T0 + 20 * MIN }),
        ]);
        await submit(elsewhere, [task('tsk_z', elsewhere)]);

        expect(ids(await read((inbox) => inbox.tasksOfConversation('t1', 'conv_a')))).toEqual([
          'tsk_b',
          'tsk_c',
          'tsk_d',
          'tsk_a',
        ]);
        expect(ids(await read((inbox) => inbox.tasksOfConversation('t1', 'conv_b')))).toEqual(['tsk_z']);
        expect(await read((inbox) => inbox.tasksOfConversation('t2', 'conv_a'))).toEqual([]);
        expect(await read((inbox) => inbox.tasksOfConversation('t1', 'conv_unknown'))).toEqual([]);
      });

      it('tasksAbout: by object id or by the case keys a task names, in the statuses asked for', async () => {
        await addConversations(conversation('conv_a'), conversation('conv_t2', { tenantId: 't2' }));
        const m = message('msg_1', 'conv_a');
        const mT2 = message('msg_t2', 'conv_t2', { tenantId: 't2' });
        await addMessages(m, mT2);
        const tB = task('tsk_b', m, {
          status: 'AWAITING_APPROVAL',
          ...caseKeys({ group_code: 'GRP-7', confirmation_number: 'CNF-1', reservation_no: 'RES-1' }),
        });
        await submit(m, [
          task('tsk_a', m, { objectId: 'ORDER:bk_1' }),
          tB,
          task('tsk_c', m, { status: 'CONFIRMED', ...caseKeys({ group_code: 'GRP-7' }) }),
          task('tsk_d', m, {
            status: 'CONTRACT_ERROR',
            kind: 'adapter_contract_error',
            ...caseKeys({ confirmation_number: 'CNF-2' }),
          }),
          task('tsk_e', m, { objectId: 'ORDER:bk_2', status: 'REJECTED' }),
        ]);
        await submit(mT2, [
          task('tsk_t2', mT2, { objectId: 'ORDER:bk_1', ...caseKeys({ group_code: 'GRP-7' }) }),
        ]);

        const about = (
          objectIds: string[],
          keys: KeyRow[],
          statuses: readonly TaskStatus[] = TASK_STATUSES,
          tenantId = 't1',
        ) => read((inbox) => inbox.tasksAbout(tenantId, { objectIds, keys }, statuses)).then(sortedIds);

        expect(await about(['ORDER:bk_1'], [])).toEqual(['tsk_a']);
        expect(await about(['ORDER:bk_1', 'ORDER:bk_2'], [])).toEqual(['tsk_a', 'tsk_e']);
        expect(await about([], [key('group', 'GRP-7')])).toEqual(['tsk_b', 'tsk_c']);
        expect(await about([], [key('confirmation', 'CNF-1')])).toEqual(['tsk_b']);
        expect(await about([], [key('reservation', 'RES-1')])).toEqual(['tsk_b']);
        expect(await about([], [key('confirmation', 'CNF-2')])).toEqual(['tsk_d']);
        // A key is its kind and its value: the same text under another kind names nothing.
        expect(await about([], [key('group', 'CNF-1')])).toEqual([]);
        expect(await about([], [key('reservation', 'GRP-7')])).toEqual([]);
        expect(await about(['ORDER:bk_9'], [key('confirmation', 'CNF-9')])).toEqual([]);
        // Any of them, each task once (tsk_b is named three ways).
        expect(
          await about(
            ['ORDER:bk_1'],
            [
              key('group', 'GRP-7'),
              key('confirmation', 'CNF-1'),
              key('reservation', 'RES-1'),
              key('confirmation', 'CNF-2'),
            ],
          ),
        ).toEqual(['tsk_a', 'tsk_b', 'tsk_c', 'tsk_d']);

        // Only the statuses asked for.
        const everything: [string[], KeyRow[]] = [
          ['ORDER:bk_1', 'ORDER:bk_2'],
          [key('group', 'GRP-7'), key('confirmation', 'CNF-2')],
        ];
        expect(await about(...everything, ['PENDING_CONFIRMATION', 'AWAITING_APPROVAL'])).toEqual([
          'tsk_a',
          'tsk_b',
        ]);
        expect(await about(...everything, ['CONFIRMED'])).toEqual(['tsk_c']);
        expect(await about(...everything, ['CONTRACT_ERROR', 'REJECTED'])).toEqual(['tsk_d', 'tsk_e']);
        expect(await about(...everything, [])).toEqual([]);
        // Nothing to be about: nothing.
        expect(await about([], [])).toEqual([]);

        // Never another tenant's, though it names the same object and keys.
        expect(await about(['ORDER:bk_1'], [key('group', 'GRP-7')], TASK_STATUSES, 't2')).toEqual(['tsk_t2']);
        expect(await about(['ORDER:bk_1'], [], TASK_STATUSES, 't3')).toEqual([]);

        // The tasks come back whole.
        expect(
          await read((inbox) =>
            inbox.tasksAbout('t1', { objectIds: [], keys: [key('reservation', 'RES-1')] }, TASK_STATUSES),
          ),
        ).toEqual([tB]);
      });

      it('updateTask at the expected version persists the decision; a stale version or another tenant changes nothing', async () => {
        await addConversations(conversation('conv_a'));
        const m = message('msg_1', 'conv_a');
        await addMessages(m);
        const t = task('tsk_1', m, caseKeys({ group_code: 'GRP-7' }));
        await submit(m, [t]);
        const current = () => read((inbox) => inbox.task('t1', 'tsk_1'));

        const awaiting: InboxTask = {
          ...t,
          status: 'AWAITING_APPROVAL',
          objectId: 'ORDER:bk_9',
          approvalId: 'apr_9',
          version: 2,
        };
        expect(await write((inbox) => inbox.updateTask(awaiting, 1))).toBe(true);
        expect(await current()).toEqual(awaiting);

        // A second person deciding from the version they saw is refused.
        const stale: InboxTask = {
          ...t,
          status: 'REJECTED',
          decidedBy: 'person:usr_bob',
          note: 'no',
          version: 2,
        };
        expect(await write((inbox) => inbox.updateTask(stale, 1))).toBe(false);
        expect(await current()).toEqual(awaiting);
        // Another tenant cannot move it, whatever version it names.
        expect(
          await write((inbox) =>
            inbox.updateTask({ ...awaiting, tenantId: 't2', status: 'REJECTED', version: 3 }, 2),
          ),
        ).toBe(false);
        expect(await current()).toEqual(awaiting);

        const confirmed: InboxTask = {
          ...awaiting,
          status: 'CONFIRMED',
          decidedBy: 'person:usr_ana',
          decidedAt: T0 + 5 * MIN,
          note: 'Confirmed by phone',
          version: 3,
        };
        expect(await write((inbox) => inbox.updateTask(confirmed, 2))).toBe(true);
        expect(await current()).toEqual(confirmed);
        expect(await write((inbox) => inbox.updateTask({ ...confirmed, version: 4 }, 2))).toBe(false);
        expect(await current()).toEqual(confirmed);

        // The object it now names finds it; its case keys still do.
        const about = (objectIds: string[], keys: KeyRow[]) =>
          read((inbox) => inbox.tasksAbout('t1', { objectIds, keys }, ['CONFIRMED'])).then(ids);
        expect(await about(['ORDER:bk_9'], [])).toEqual(['tsk_1']);
        expect(await about([], [key('group', 'GRP-7')])).toEqual(['tsk_1']);
      });

      it('rowCounts counts each inbox table for one tenant', async () => {
        await addConversations(
          conversation('conv_a'),
          conversation('conv_b'),
          conversation('conv_t2', { tenantId: 't2' }),
        );
        const m1 = message('msg_1', 'conv_a');
        const mT2 = message('msg_t2', 'conv_t2', { tenantId: 't2' });
        await addMessages(m1, message('msg_2', 'conv_a'), message('msg_3', 'conv_b'), mT2);
        await submit(m1, [task('tsk_1', m1), task('tsk_2', m1)]);
        await submit(mT2, [task('tsk_t2', mT2)]);
        await write(async (inbox) => {
          await inbox.replaceKeys('t1', 'bk_1', [key('confirmation', 'CNF-1'), key('group', 'GRP-7')]);
          await inbox.replaceKeys('t1', 'bk_2', [key('group', 'GRP-7')]);
          await inbox.replaceKeys('t2', 'bk_1', [key('confirmation', 'CNF-1')]);
        });

        const t1 = await read((inbox) => inbox.rowCounts('t1'));
        expect(t1).toMatchObject({
          inbox_conversations: 2,
          inbox_messages: 3,
          inbox_batches: 1,
          inbox_tasks: 2,
          booking_keys: 3,
        });
        expect(await read((inbox) => inbox.rowCounts('t2'))).toMatchObject({
          inbox_conversations: 1,
          inbox_messages: 1,
          inbox_batches: 1,
          inbox_tasks: 1,
          booking_keys: 1,
        });
        const none = await read((inbox) => inbox.rowCounts('t3'));
        expect(Object.keys(none).sort()).toEqual(Object.keys(t1).sort());
        expect(Object.values(none).every((n) => n === 0)).toBe(true);
      });
    });

    describe('business keys', () => {
      const withKey = (tenantId: string, kind: KeyKind, value: string) =>
        store.read((tx) => tx.inbox.bookingsWithKey(tenantId, kind, value)).then(sorted);

      it("replaceKeys replaces a booking's keys; bookingsWithKey finds them, a group code on many bookings", async () => {
        await write(async (inbox) => {
          await inbox.replaceKeys('t1', 'bk_1', [
            key('confirmation', 'CNF-1'),
            key('group', 'GRP-7'),
            key('reservation', 'RES-1'),
          ]);
          await inbox.replaceKeys('t1', 'bk_2', [key('group', 'GRP-7'), key('confirmation', 'CNF-2')]);
          await inbox.replaceKeys('t1', 'bk_3', [key('group', 'GRP-7')]);
        });
        expect(await withKey('t1', 'group', 'GRP-7')).toEqual(['bk_1', 'bk_2', 'bk_3']);
        expect(await withKey('t1', 'confirmation', 'CNF-1')).toEqual(['bk_1']);
        expect(await withKey('t1', 'reservation', 'RES-1')).toEqual(['bk_1']);
        expect(await withKey('t1', 'confirmation', 'CNF-2')).toEqual(['bk_2']);
        expect(await withKey('t1', 'confirmation', 'GRP-7')).toEqual([]);
        expect(await withKey('t1', 'confirmation', 'CNF-unknown')).toEqual([]);

        // The old rows go: only the keys given remain.
        await write((inbox) => inbox.replaceKeys('t1', 'bk_1', [key('confirmation', 'CNF-9')]));
        expect(await withKey('t1', 'confirmation', 'CNF-1')).toEqual([]);
        expect(await withKey('t1', 'reservation', 'RES-1')).toEqual([]);
        expect(await withKey('t1', 'group', 'GRP-7')).toEqual(['bk_2', 'bk_3']);
        expect(await withKey('t1', 'confirmation', 'CNF-9')).toEqual(['bk_1']);
        // Other bookings keep theirs.
        expect(await withKey('t1', 'confirmation', 'CNF-2')).toEqual(['bk_2']);

        // A number given up may name another booking; the same text under another kind is another key.
        await write(async (inbox) => {
          await inbox.replaceKeys('t1', 'bk_5', [key('confirmation', 'CNF-1')]);
          await inbox.replaceKeys('t1', 'bk_4', [key('reservation', 'CNF-9')]);
        });
        expect(await withKey('t1', 'confirmation', 'CNF-1')).toEqual(['bk_5']);
        expect(await withKey('t1', 'reservation', 'CNF-9')).toEqual(['bk_4']);
        expect(await withKey('t1', 'confirmation', 'CNF-9')).toEqual(['bk_1']);

        // No keys: none left.
        await write((inbox) => inbox.replaceKeys('t1', 'bk_3', []));
        expect(await withKey('t1', 'group', 'GRP-7')).toEqual(['bk_2']);
        // Replacing with the keys it has changes nothing.
        await write((inbox) =>
          inbox.replaceKeys('t1', 'bk_2', [key('group', 'GRP-7'), key('confirmation', 'CNF-2')]),
        );
        expect(await withKey('t1', 'group', 'GRP-7')).toEqual(['bk_2']);
        expect(await withKey('t1', 'confirmation', 'CNF-2')).toEqual(['bk_2']);

        // Each tenant's keys are its own.
        await write((inbox) => inbox.replaceKeys('t2', 'bk_1', [key('confirmation', 'CNF-2')]));
        expect(await withKey('t2', 'confirmation', 'CNF-2')).toEqual(['bk_1']);
        expect(await withKey('t1', 'confirmation', 'CNF-2')).toEqual(['bk_2']);
        expect(await withKey('t2', 'confirmation', 'CNF-9')).toEqual([]);
      });

      it('the database refuses a confirmation or reservation number on a second booking of a tenant; another tenant may use it', async () => {
        await write(async (inbox) => {
          await inbox.replaceKeys('t1', 'bk_1', [key('confirmation', 'CNF-1'), key('reservation', 'RES-1')]);
          await inbox.replaceKeys('t1', 'bk_2', [key('group', 'GRP-7'), key('reservation', 'RES-2')]);
        });
        const before = await read((inbox) => inbox.rowCounts('t1'));
        const refusal = /UNIQUE constraint failed|duplicate key value/i;

        await expect(
          write((inbox) => inbox.replaceKeys('t1', 'bk_2', [key('confirmation', 'CNF-1')])),
        ).rejects.toThrow(refusal);
        await expect(
          write((inbox) =>
            inbox.replaceKeys('t1', 'bk_3', [key('group', 'GRP-7'), key('reservation', 'RES-1')]),
          ),
        ).rejects.toThrow(refusal);
        // The refused writes are undone whole: bk_2 keeps the keys it had, bk_3 gained none.
        expect(await read((inbox) => inbox.rowCounts('t1'))).toEqual(before);
        expect(await withKey('t1', 'confirmation', 'CNF-1')).toEqual(['bk_1']);
        expect(await withKey('t1', 'reservation', 'RES-1')).toEqual(['bk_1']);
        expect(await withKey('t1', 'group', 'GRP-7')).toEqual(['bk_2']);
        expect(await withKey('t1', 'reservation', 'RES-2')).toEqual(['bk_2']);

        // Another tenant may use the same numbers.
        await write((inbox) =>
          inbox.replaceKeys('t2', 'bk_2', [key('confirmation', 'CNF-1'), key('reservation', 'RES-1')]),
        );
        expect(await withKey('t2', 'confirmation', 'CNF-1')).toEqual(['bk_2']);
        expect(await withKey('t2', 'reservation', 'RES-1')).toEqual(['bk_2']);
        expect(await withKey('t1', 'confirmation', 'CNF-1')).toEqual(['bk_1']);
      });
    });

    it('ingest tokens: used while live (last use kept), refused when revoked or expired, revoked once, listed per tenant', async () => {
      const live = token('ing_1', { createdAt: T0 });
      const expiring = token('ing_2', { createdAt: T0 + MIN, expiresAt: T0 + H });
      const revoked = token('ing_3', { createdAt: T0 + 2 * MIN, revokedAt: T0 + 3 * MIN });
      const theirs = token('ing_t2', { tenantId: 't2' });
      await write(async (inbox) => {
        await inbox.insertIngestToken(revoked, 'sha256:revoked');
        await inbox.insertIngestToken(theirs, 'sha256:theirs');
        await inbox.insertIngestToken(live, 'sha256:live');
        await inbox.insertIngestToken(expiring, 'sha256:expiring');
      });
      const list = (tenantId: string) => read((inbox) => inbox.ingestTokens(tenantId));
      const use = (digest: string, now: number) => write((inbox) => inbox.useIngestToken(digest, now));

      expect(await list('t1')).toEqual([live, expiring, revoked]);
      expect(await list('t2')).toEqual([theirs]);
      expect(await list('t3')).toEqual([]);
      // The digest is what finds a token; it is never handed back.
      expect(JSON.stringify(await list('t1'))).not.toContain('sha256:');

      expect(await use('sha256:live', T0 + 10 * MIN)).toEqual({ ...live, lastUsedAt: T0 + 10 * MIN });
      expect(await use('sha256:expiring', T0 + H - 1)).toEqual({ ...expiring, lastUsedAt: T0 + H - 1 });
      expect(await use('sha256:expiring', T0 + H)).toBeNull();
      expect(await use('sha256:revoked', T0)).toBeNull();
      expect(await use('sha256:unknown', T0)).toBeNull();
      expect(await list('t1')).toEqual([
        { ...live, lastUsedAt: T0 + 10 * MIN },
        { ...expiring, lastUsedAt: T0 + H - 1 },
        revoked,
      ]);

      const revoke = (tenantId: string, id: string, now: number) =>
        write((inbox) => inbox.revokeIngestToken(tenantId, id, now));
      expect(await revoke('t2', 'ing_1', T0 + 20 * MIN)).toBe(false);
      expect(await use('sha256:live', T0 + 20 * MIN)).toEqual({ ...live, lastUsedAt: T0 + 20 * MIN });
      expect(await revoke('t1', 'ing_1', T0 + 21 * MIN)).toBe(true);
      expect(await revoke('t1', 'ing_1', T0 + 22 * MIN)).toBe(false);
      expect(await revoke('t1', 'ing_3', T0 + 22 * MIN)).toBe(false);
      expect(await revoke('t1', 'ing_unknown', T0 + 22 * MIN)).toBe(false);
      expect(await use('sha256:live', T0 + 23 * MIN)).toBeNull();
      expect(await list('t1')).toEqual([
        { ...live, lastUsedAt: T0 + 20 * MIN, revokedAt: T0 + 21 * MIN },
        { ...expiring, lastUsedAt: T0 + H - 1 },
        revoked,
      ]);
      expect(await list('t2')).toEqual([theirs]);
      expect(await use('sha256:theirs', T0)).toEqual({ ...theirs, lastUsedAt: T0 });
    });

    it("a tenant's tool profile, disabled tools and retention round-trip through identity", async () => {
      const tenant: Tenant = {
        id: 't1',
        name: 'Hotel One',
        limits: defaultTenantLimits,
        defaultWritePolicy: 'draft',
        toolProfile: 'hotel-ops',
        toolMode: 'catalog',
        approvalWindowMinutes: 30,
        disabledTools: ['submit_reservation_results', 'hold_slot'],
        offerAlternatives: false,
        customerRetentionDays: 365,
        createdAt: T0,
      };
      const other: Tenant = {
        ...tenant,
        id: 't2',
        name: 'Hotel Two',
        toolProfile: 'inherit',
        toolMode: 'flat',
        disabledTools: [],
        offerAlternatives: true,
        customerRetentionDays: null,
      };
      await store.write(async (tx) => {
        await tx.tenants.putTenant(tenant);
        await tx.tenants.putTenant(other);
      });
      expect(await store.read((tx) => tx.tenants.getTenant('t1'))).toEqual(tenant);
      expect(await store.read((tx) => tx.tenants.getTenant('t2'))).toEqual(other);

      const changed: Tenant = { ...tenant, toolProfile: 'standard', toolMode: 'inherit', disabledTools: [] };
      await store.write((tx) => tx.tenants.putTenant(changed));
      expect(await store.read((tx) => tx.tenants.getTenant('t1'))).toEqual(changed);
      const back: Tenant = { ...tenant, toolProfile: 'inherit', disabledTools: ['find_slots'] };
      await store.write((tx) => tx.tenants.putTenant(back));
      expect(await store.read((tx) => tx.tenants.listTenants())).toEqual([back, other]);

      // The schema itself refuses a profile it does not know.
      await expect(
        store.write((tx) => tx.tenants.putTenant({ ...tenant, toolProfile: 'bogus' as ToolProfile })),
      ).rejects.toThrow();
      await expect(
        store.write((tx) => tx.tenants.putTenant({ ...tenant, toolMode: 'bogus' as Tenant['toolMode'] })),
      ).rejects.toThrow();
      expect(await store.read((tx) => tx.tenants.getTenant('t1'))).toEqual(back);
    });
  });
}
