import { openSqlite } from '../../../src/adapters/storage/sqlite/sqlite-database.js';
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GENESIS, StoreAuditLog } from '../../../src/adapters/audit/audit-chain.js';
import { AuditKey } from '../../../src/adapters/audit/audit-key.js';
import { verifyAudit } from '../../../src/adapters/audit/audit-verify.js';
import { SqliteStore } from '../../../src/adapters/storage/sqlite/sqlite-store.js';
import type { SignedAuditEntry, AuditEntry, AuditRecord } from '../../../src/ports/audit.js';
import type { Store, StoreTx } from '../../../src/ports/store/index.js';
import { entry } from '../../support/audit-entry.js';
import { tempDbPath } from '../../support/spawn-server.js';

const key = new AuditKey('k'.repeat(40));

let db: ReturnType<typeof tempDbPath>;
let store: SqliteStore;
beforeEach(async () => {
  db = tempDbPath();
  store = await SqliteStore.open(db.path);
});
afterEach(async () => {
  await store.close();
  db.cleanup();
});

/** A store whose audit append refuses one poisoned entry, as a driver would refuse a bad value. */
function poisonedFor(tool: string): Store {
  const wrap = (tx: StoreTx): StoreTx =>
    Object.assign(Object.create(tx) as StoreTx, {
      audit: Object.assign(Object.create(tx.audit) as StoreTx['audit'], {
        append: async (e: AuditEntry, mac: string) => {
          if (e.tool === tool) throw new Error('value refused by the driver');
          return tx.audit.append(e, mac);
        },
        appendAll: async (entries: readonly SignedAuditEntry[]) => {
          if (entries.some(({ entry: e }) => e.tool === tool)) throw new Error('value refused by the driver');
          return tx.audit.appendAll(entries);
        },
      }),
    });
  return {
    read: (work) => store.read((tx) => work(wrap(tx))),
    write: (work) => store.write((tx) => work(wrap(tx))),
    writeOne: (work) => store.writeOne((tx) => work(wrap(tx))),
    readOne: (work) => store.readOne((tx) => work(wrap(tx))),
    close: () => store.close(),
  };
}

describe('the audit trail', () => {
  it('one append after another on the same log: each becomes durable and sealed (none waits in memory)', async () => {
    const log = new StoreAuditLog(store, key, { sealDelayMs: 0 });
    // Each must resolve on its own: an entry left queued as a drain ends would hang here (test timeout).
    for (const tool of ['first', 'second', 'third']) await log.append(entry(tool));
    expect(await verifyAudit(store, key)).toMatchObject({ ok: true, records: 3, pending: 0 });
  }, 5_000);

  it('loses only the bad entry when one entry of a batch fails, never its neighbours', async () => {
    const errors: string[] = [];
    const log = new StoreAuditLog(poisonedFor('poison'), key, { onError: (m) => errors.push(m) });
    const tools = ['a', 'b', 'poison', 'c', 'd', 'e'];
    const results = await Promise.allSettled(tools.map((t) => log.append(entry(t))));
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    const records = await store.read((tx) => tx.audit.records(0, 100));
    expect(records.map((r) => r.tool).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(errors).toEqual(['audit append failed']);
    expect((await verifyAudit(store, key)).ok).toBe(true);
  });

  it('seals entries written with an effect, in order, with a MAC under the key', async () => {
    await store.write((tx) => tx.audit.append(entry('hold_slot'), key.entryMac(entry('hold_slot'))));
    const log = new StoreAuditLog(store, key);
    await log.append(entry('get_booking'));
    const records = await store.read((tx) => tx.audit.records(0, 10));
    expect(records.map((r) => [r.seq, r.tool, r.macVersion, r.keyId])).toEqual([
      [1, 'hold_slot', 2, key.keyId],
      [2, 'get_booking', 2, key.keyId],
    ]);
    expect(records[1]!.prevHash).toBe(records[0]!.hash);
    expect(await verifyAudit(store, key)).toMatchObject({ ok: true, records: 2, pending: 0 });
  });

  it('refuses to seal with another key rather than fork the chain; the entries stay written', async () => {
    await new StoreAuditLog(store, key).append(entry('first'));
    const errors: string[] = [];
    const other = new StoreAuditLog(store, new AuditKey('x'.repeat(40)), { onError: (m) => errors.push(m) });
    await other.append(entry('second'));
    expect(errors).toEqual(['audit seal refused']);
    expect(await store.read((tx) => tx.audit.countPending())).toBe(1);
    const wrongKey = await verifyAudit(store, new AuditKey('x'.repeat(40)));
    expect(wrongKey.firstBroken?.reason).toMatch(/another audit key/);
  });

  it('verifies a chain begun by an earlier release (unkeyed sha256), then continued with the key', async () => {
    // What releases before keyed audit wrote: sha256 over the canonical {prevHash, seq, entry}.
    const legacy: AuditRecord[] = [];
    let prevHash = GENESIS;
    for (const [seq, tool] of [
      [1, 'old_a'],
      [2, 'old_b'],
    ] as const) {
      const e = { ...entry(tool), preview: '{"customer":{"email":"a***@example.com"}}' };
      const body = canonicalize({ prevHash, seq, entry: { ...e, preview: JSON.parse(e.preview) } })!;
      const hash = `sha256:${createHash('sha256').update(body).digest('hex')}`;
      legacy.push({ ...e, seq, prevHash, hash, macVersion: 1, keyId: null });
      prevHash = hash;
    }
    expect(await store.write((tx) => tx.audit.link(legacy, [], null))).toBe(true);
    await new StoreAuditLog(store, key).append(entry('new'));
    // Unkeyed records prove nothing by themselves: accepted only when the operator says the database is that old.
    expect((await verifyAudit(store, key)).firstBroken).toMatchObject({
      seq: 1,
      reason: expect.stringMatching(/--allow-unkeyed/),
    });
    expect(await verifyAudit(store, key, { allowUnkeyed: true })).toMatchObject({
      ok: true,
      records: 3,
      legacyRecords: 2,
    });
  });
});

describe('entries waiting to be sealed', () => {
  it('an entry forged or edited in the database before sealing is quarantined, and verify says so', async () => {
    const forged = entry('cancel_booking');
    await store.write((tx) => tx.audit.append(forged, 'hmac-sha256:not-the-real-mac'));
    await store.write((tx) => tx.audit.append(entry('edited'), key.entryMac(entry('edited'))));
    // Someone with the database edits a pending entry before the sealer gets to it.
    const raw = openSqlite(db.path);
    raw
      .prepare("UPDATE audit_pending SET outcome = 'ok', tool = 'list_calendars' WHERE tool = 'edited'")
      .run();
    raw.close();
    await new StoreAuditLog(store, key).append(entry('honest'));
    const records = await store.read((tx) => tx.audit.records(0, 10));
    expect(records.map((r) => r.tool)).toEqual(['audit_quarantine', 'audit_quarantine', 'honest']);
    expect(JSON.parse(records[0]!.preview)).toMatchObject({ claimed: { tool: 'cancel_booking' } });
    const result = await verifyAudit(store, key);
    expect(result.ok).toBe(false);
    expect(result.quarantined).toEqual([1, 2]);
    expect(result.firstBroken?.reason).toMatch(/forged or edited in the database before sealing/);
  });
});
