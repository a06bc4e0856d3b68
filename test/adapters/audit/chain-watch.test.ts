import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreAuditLog } from '../../../src/adapters/audit/audit-chain.js';
import { AuditKey } from '../../../src/adapters/audit/audit-key.js';
import { verifyAudit } from '../../../src/adapters/audit/audit-verify.js';
import { ChainWatch } from '../../../src/adapters/audit/chain-watch.js';
import { checkpointAuthentic, parseCheckpoints } from '../../../src/adapters/audit/checkpoint.js';
import { openSqlite } from '../../../src/adapters/storage/sqlite/sqlite-database.js';
import { SqliteStore } from '../../../src/adapters/storage/sqlite/sqlite-store.js';
import type { AuditEntry } from '../../../src/ports/audit.js';
import type { Store } from '../../../src/ports/store/index.js';
import { entry } from '../../support/audit-entry.js';
import { tempDbPath } from '../../support/spawn-server.js';

// The console's incremental check of the chain: the same per-record rule as `audit verify`,
// new records checked once, the newest verified one re-read on every look, a break kept.

const key = new AuditKey('k'.repeat(40));

let db: ReturnType<typeof tempDbPath>;
let store: SqliteStore;
let clock = 1_800_000_000_000;
const watch = () => new ChainWatch(store, key, { now: () => clock });

beforeEach(async () => {
  db = tempDbPath();
  store = await SqliteStore.open(db.path);
});
afterEach(async () => {
  await store.close();
  db.cleanup();
});

/**
 * Appends and seals one entry. A fresh log each time: one StoreAuditLog loses the kick of an
 * append made right as its previous drain ends (the entry then waits for the next append).
 */
const log = { append: (e: AuditEntry) => new StoreAuditLog(store, key).append(e) };

/** Runs SQL on the file behind Holdfast's back, with the append-only triggers out of the way. */
function tamper(sql: string): void {
  const raw = openSqlite(db.path);
  raw.exec('DROP TRIGGER IF EXISTS audit_log_no_update; DROP TRIGGER IF EXISTS audit_log_no_delete;');
  raw.exec(sql);
  raw.close();
}

describe('the console’s chain check', () => {
  it('an empty chain is empty; sealed records verify, and new ones are checked as they come', async () => {
    const chain = watch();
    expect((await chain.status()).state).toBe('empty');
    for (const tool of ['a', 'b', 'c']) await log.append(entry(tool));
    expect(await chain.status()).toMatchObject({ state: 'verified', through: 3, since: clock });
    clock += 60_000;
    await log.append(entry('d'));
    expect(await chain.status()).toMatchObject({ state: 'verified', through: 4, checkedAt: clock });
  });

  it('its checkpoint is authentic and `audit verify --checkpoint` accepts it', async () => {
    for (const tool of ['a', 'b']) await log.append(entry(tool));
    const { checkpoint } = await watch().status();
    const parsed = parseCheckpoints(checkpoint!).checkpoints;
    expect(parsed).toHaveLength(1);
    expect(parsed[0]).toMatchObject({ seq: 2 });
    expect(checkpointAuthentic(key, parsed[0]!)).toBe(true);
    expect(await verifyAudit(store, key, { checkpoints: parsed })).toMatchObject({
      ok: true,
      checkpointsChecked: 1,
    });
  });

  it('a record edited without the key breaks it at that record, and the break stays', async () => {
    for (const tool of ['a', 'b']) await log.append(entry(tool));
    const chain = watch();
    expect((await chain.status()).state).toBe('verified');
    await log.append(entry('c'));
    tamper("UPDATE audit_log SET outcome = 'error' WHERE seq = 3");
    expect(await chain.status()).toMatchObject({
      state: 'broken',
      broken: { seq: 3, reason: 'content does not match its MAC' },
    });
    await log.append(entry('d'));
    expect((await chain.status()).state).toBe('broken');
  });

  it('the newest verified record cut off or rewritten is caught on the next look', async () => {
    for (const tool of ['a', 'b', 'c']) await log.append(entry(tool));
    const chain = watch();
    expect((await chain.status()).through).toBe(3);
    tamper('DELETE FROM audit_log WHERE seq = 3');
    expect(await chain.status()).toMatchObject({
      state: 'broken',
      broken: { seq: 3, reason: expect.stringMatching(/gone or changed/) },
    });
  });

  it('a quarantined entry breaks it, as `audit verify` does', async () => {
    await store.write((tx) => tx.audit.append(entry('forged'), 'hmac-sha256:not-the-mac'));
    await log.append(entry('honest'));
    expect(await watch().status()).toMatchObject({
      state: 'broken',
      broken: { seq: 1, reason: expect.stringMatching(/quarantined/) },
    });
  });

  it('a long chain is walked on in the background: checking, then verified', async () => {
    for (let i = 0; i < 30; i++) await log.append(entry(`t${i}`));
    // Each page of 5 takes 10 ms to read, and the page waits only 15 ms for the walk.
    const slow: Store = {
      read: async (work) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        return store.read(work);
      },
      write: (work) => store.write(work),
      writeOne: (work) => store.writeOne(work),
      readOne: (work) => store.readOne(work),
      close: () => store.close(),
    };
    const chain = new ChainWatch(slow, key, { now: () => clock, budgetMs: 15, pageSize: 5 });
    const first = await chain.status();
    expect(first.state).toBe('checking');
    expect(first.through).toBeLessThan(30);
    // It goes on checking by itself: each later look finds it further, then done.
    let later = await chain.status();
    for (let i = 0; i < 500 && later.state === 'checking'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      later = await chain.status();
    }
    expect(later).toMatchObject({ state: 'verified', through: 30 });
  });
});
