import { expect, it } from 'vitest';
import type { AuditEntry, AuditRecord } from '../../../src/ports/audit.js';
import type { AuditFilter } from '../../../src/ports/store/audit.js';
import type { Store } from '../../../src/ports/store/index.js';

// AuditStore.search, run by storeContract on every engine: one tenant's sealed records, newest
// first, narrowed by each filter, in keyset pages, never another tenant's.

const T0 = Date.UTC(2030, 0, 7, 9);
const MIN = 60_000;

function entry(n: number, fields: Partial<AuditEntry> = {}): AuditEntry {
  return {
    at: T0 + n * MIN,
    tenantId: 't1',
    subject: 'ppl_ana',
    clientId: 'tok_1 "laptop"',
    transport: 'http',
    tool: 'find_slots',
    kind: 'read',
    outcome: 'ok',
    errorCode: null,
    blockedReason: null,
    argumentsDigest: 'hmac-sha256:d',
    preview: '{}',
    traceId: `trace-${n}`,
    operationId: `op_${n}`,
    durationMs: 1,
    ...fields,
  };
}

/** Links entries straight into the chain after its head (hashes made up: search does not check them). */
async function seal(store: Store, entries: readonly AuditEntry[]): Promise<AuditRecord[]> {
  return store.write(async (tx) => {
    await tx.serialize('audit-chain');
    const head = await tx.audit.head();
    let seq = head?.seq ?? 0;
    const records = entries.map((e): AuditRecord => {
      seq += 1;
      return { ...e, seq, prevHash: `h${seq - 1}`, hash: `h${seq}`, macVersion: 2, keyId: 'k' };
    });
    expect(await tx.audit.link(records, [], head)).toBe(true);
    return records;
  });
}

/** The trail the tests search: two people and two connections of t1, and tenant t2 beside it. */
async function seedTrail(store: Store) {
  return seal(store, [
    entry(1, { tool: 'create_calendar', kind: 'write' }),
    entry(2, { tenantId: 't2', subject: 'ppl_bob', preview: '{"bookingId":"bk_shared"}' }),
    entry(3, { tool: 'hold_slot', kind: 'write', preview: '{"bookingId":"bk_shared"}' }),
    entry(4, {
      subject: 'ppl_cy',
      clientId: 'tok_2 "phone"',
      outcome: 'error',
      errorCode: 'SLOT_UNAVAILABLE',
    }),
    entry(5, {
      tool: 'confirm_booking',
      kind: 'write',
      outcome: 'input_required',
      preview: '{"bookingId":"bk_Mixed"}',
    }),
    entry(6, {
      subject: 'ppl_cy',
      tool: 'console_approval',
      kind: 'approval',
      preview: '{"note":"50%_off"}',
    }),
    entry(7, { preview: '{"note":"500_offers"}' }),
    entry(8, { tenantId: 't2', tool: 'hold_slot', kind: 'write' }),
    entry(9, { outcome: 'error', errorCode: 'INVALID_ARGUMENTS' }),
  ]);
}

export function auditSearchContract(storeOf: () => Store): void {
  const search = (filter: AuditFilter) =>
    storeOf().read((tx) => tx.audit.search('t1', filter, { limit: 50 }));
  const seqs = (records: readonly AuditRecord[]) => records.map((r) => r.seq);

  it("audit search: one tenant's sealed records, newest first, exactly as sealed; pending ones not yet", async () => {
    const store = storeOf();
    const sealed = await seedTrail(store);
    await store.write((tx) => tx.audit.append(entry(10), 'mac-pending'));
    const found = await search({});
    expect(found).toEqual(sealed.filter((r) => r.tenantId === 't1').reverse());
    expect(seqs(await store.read((tx) => tx.audit.search('t2', {}, { limit: 50 })))).toEqual([8, 2]);
    expect(await store.read((tx) => tx.audit.search('t3', {}, { limit: 50 }))).toEqual([]);
  });

  it('audit search: each filter narrows, and they combine', async () => {
    await seedTrail(storeOf());
    expect(seqs(await search({ subject: 'ppl_cy' }))).toEqual([6, 4]);
    expect(seqs(await search({ clientId: 'tok_2 "phone"' }))).toEqual([4]);
    // A connection is matched exactly, not as a prefix or a pattern.
    expect(seqs(await search({ clientId: 'tok_2' }))).toEqual([]);
    expect(seqs(await search({ tool: 'hold_slot' }))).toEqual([3]);
    expect(seqs(await search({ kind: 'write' }))).toEqual([5, 3, 1]);
    expect(seqs(await search({ kind: 'approval' }))).toEqual([6]);
    expect(seqs(await search({ outcome: 'error' }))).toEqual([9, 4]);
    expect(seqs(await search({ outcome: 'input_required' }))).toEqual([5]);
    expect(seqs(await search({ errorCode: 'SLOT_UNAVAILABLE' }))).toEqual([4]);
    // From inclusive, to exclusive.
    expect(seqs(await search({ from: T0 + 3 * MIN, to: T0 + 6 * MIN }))).toEqual([5, 4, 3]);
    expect(seqs(await search({ from: T0 + 9 * MIN }))).toEqual([9]);
    expect(seqs(await search({ to: T0 + 2 * MIN }))).toEqual([1]);
    expect(seqs(await search({ outcome: 'error', subject: 'ppl_ana' }))).toEqual([9]);
    expect(seqs(await search({ kind: 'write', from: T0 + 2 * MIN, subject: 'ppl_ana' }))).toEqual([5, 3]);
  });

  it('audit search: `mentions` is literal text in the preview: its % and _ match only themselves', async () => {
    await seedTrail(storeOf());
    // Another tenant's record mentions the same booking: never found from t1.
    expect(seqs(await search({ mentions: 'bk_shared' }))).toEqual([3]);
    // ASCII case does not matter, on every engine.
    expect(seqs(await search({ mentions: 'BK_MIXED' }))).toEqual([5]);
    expect(seqs(await search({ mentions: '50%_' }))).toEqual([6]);
    // Were % and _ wildcards, these would match "500_offers" and every preview.
    expect(seqs(await search({ mentions: '50%' }))).toEqual([6]);
    expect(seqs(await search({ mentions: '%' }))).toEqual([6]);
    expect(seqs(await search({ mentions: '_' }))).toEqual([7, 6, 5, 3]);
    expect(seqs(await search({ mentions: 'bk\\_shared' }))).toEqual([]);
    expect(seqs(await search({ mentions: "x' OR 1=1 --" }))).toEqual([]);
  });

  it('audit search: keyset pages before and after a seq, newest first, under a filter', async () => {
    const store = storeOf();
    await seedTrail(store);
    const page = (p: { before?: number; after?: number; limit: number }, filter: AuditFilter = {}) =>
      store.read((tx) => tx.audit.search('t1', filter, p)).then(seqs);
    expect(await page({ limit: 3 })).toEqual([9, 7, 6]);
    expect(await page({ before: 6, limit: 3 })).toEqual([5, 4, 3]);
    expect(await page({ before: 3, limit: 3 })).toEqual([1]);
    expect(await page({ before: 1, limit: 3 })).toEqual([]);
    // Newer: the oldest records after the cursor, still newest first.
    expect(await page({ after: 1, limit: 3 })).toEqual([5, 4, 3]);
    expect(await page({ after: 5, limit: 3 })).toEqual([9, 7, 6]);
    expect(await page({ after: 9, limit: 3 })).toEqual([]);
    expect(await page({ after: 1, before: 5, limit: 10 })).toEqual([4, 3]);
    expect(await page({ before: 9, limit: 2 }, { subject: 'ppl_ana' })).toEqual([7, 5]);
    expect(await page({ after: 3, limit: 1 }, { subject: 'ppl_ana' })).toEqual([5]);
  });
}
