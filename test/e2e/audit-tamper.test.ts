import { createHash, randomUUID } from 'node:crypto';
import canonicalize from 'canonicalize';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditKey } from '../../src/adapters/audit/audit-key.js';
import type { AuditRow } from '../../src/adapters/storage/audit-rows.js';
import { auditRecordOf } from '../../src/adapters/storage/audit-rows.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp } from '../support/mcp-clients.js';
import { runCli } from '../support/spawn-server.js';
import type { Backend, BackendKind } from '../reliability/harness.js';
import { startBackend } from '../reliability/harness.js';

/** Where the server keeps its audit key, from the CLI arguments that name the database. */
function keyOf(args: string[]): AuditKey {
  const flag = args.indexOf('--audit-key-file');
  const path = flag >= 0 ? args[flag + 1]! : join(dirname(args[args.indexOf('--db') + 1]!), 'audit.key');
  return new AuditKey(readFileSync(path, 'utf8'));
}

const GUARDS: Record<BackendKind, string[]> = {
  sqlite: ['DROP TRIGGER IF EXISTS audit_log_no_update', 'DROP TRIGGER IF EXISTS audit_log_no_delete'],
  postgres: ['DROP TRIGGER IF EXISTS audit_log_no_change ON audit_log'],
};

describe.each(['sqlite', 'postgres'] as BackendKind[])('audit tamper matrix on %s', (kind) => {
  let backend: Backend;
  let dir: string;
  let checkpoints: string;
  let total: number;
  const q = (n: number) => (kind === 'sqlite' ? '?' : `$${n}`);

  /** The text and the JSON verdict, asked of two processes at once. */
  const verify = async (withCheckpoints = true) => {
    const args = ['audit', 'verify', ...backend.databaseArgs];
    const [run, json] = await Promise.all([
      runCli(withCheckpoints ? [...args, '--checkpoint', checkpoints] : args),
      runCli([...args, '--json', ...(withCheckpoints ? ['--checkpoint', checkpoints] : [])]),
    ]);
    return { ...run, result: JSON.parse(json.stdout) };
  };
  const rows = async () =>
    (await backend.sql<AuditRow>('SELECT * FROM audit_log ORDER BY seq')).map(auditRecordOf);
  const restore = async () => {
    await backend.sql('DELETE FROM audit_log');
    await backend.sql('INSERT INTO audit_log SELECT * FROM audit_backup');
  };

  beforeAll(async () => {
    backend = await startBackend(kind, { instances: 1 });
    dir = mkdtempSync(join(tmpdir(), 'holdfast-checkpoints-'));
    checkpoints = join(dir, 'checkpoints.log');
    const [client] = [await connectHttp(backend.urls()[0]!, 'modern')];
    const room = await createOpenCalendar(client, 'Audited room');
    await call(client, 'list_calendars', {});
    await waitSealed(backend);
    // An early checkpoint, kept elsewhere by the operator...
    expect(
      (await runCli(['audit', 'checkpoint', '--out', checkpoints, ...backend.databaseArgs])).status,
    ).toBe(0);
    for (let i = 0; i < 5; i++) {
      await call(client, 'hold_slot', {
        calendarIds: [room],
        start: futureHour(3, i),
        end: futureHour(3, i + 1),
        customer: { name: 'Ada', email: 'ada@example.com' },
        idempotencyKey: randomUUID(),
      });
      await call(client, 'get_booking', { bookingId: `bk_missing_${i}` });
    }
    await client.close();
    await waitSealed(backend);
    // ...and one at the head; the server also logs them, in the same format.
    expect(
      (await runCli(['audit', 'checkpoint', '--out', checkpoints, ...backend.databaseArgs])).status,
    ).toBe(0);
    total = (await rows()).length;
    expect(total).toBeGreaterThanOrEqual(12);
    expect((await verify()).status).toBe(0);
    await backend.sql('CREATE TABLE audit_backup AS SELECT * FROM audit_log');
  });
  afterAll(async () => {
    await backend.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses UPDATE and DELETE while its guards are in place', async () => {
    await expect(backend.sql("UPDATE audit_log SET outcome = 'ok' WHERE seq = 3")).rejects.toThrow(
      /append-only/,
    );
    await expect(backend.sql('DELETE FROM audit_log WHERE seq = 3')).rejects.toThrow(/append-only/);
    // Everything below is what someone who drops the guards can do.
    for (const statement of GUARDS[kind]) await backend.sql(statement);
  });

  const appendCopyOfLast = async (tool: string, version: string) => {
    const [last] = (await rows()).slice(-1);
    await backend.sql(
      `INSERT INTO audit_log SELECT seq + 1, at, tenant_id, subject, client_id, transport, ${tool}, kind, outcome,
         error_code, blocked_reason, arguments_digest, preview, trace_id, duration_ms, hash, hash, ${version},
         operation_id
       FROM audit_log WHERE seq = ${q(1)}`,
      [last!.seq],
    );
  };

  /** Each attack, and the first record `verify --checkpoint` must name, given the chain's length. */
  const attacks: [string, () => Promise<unknown>, (total: number) => number][] = [
    [
      'edit one field',
      () => backend.sql(`UPDATE audit_log SET tool = 'list_calendars' WHERE seq = 5`),
      () => 5,
    ],
    ['delete a middle record', () => backend.sql('DELETE FROM audit_log WHERE seq = 6'), () => 6],
    [
      'delete the newest records',
      () => backend.sql(`DELETE FROM audit_log WHERE seq > ${q(1)}`, [total - 2]),
      (n) => n - 1,
    ],
    ['delete every record', () => backend.sql('DELETE FROM audit_log'), () => 1],
    [
      // The server seals its next call at the freed numbers: the chain links up again, but the
      // records from n - 2 on are not the ones the checkpoint counted (they came after it).
      'delete the newest records, then new ones take their numbers',
      async () => {
        await backend.sql(`DELETE FROM audit_log WHERE seq > ${q(1)}`, [total - 3]);
        const client = await connectHttp(backend.urls()[0]!, 'modern');
        await call(client, 'list_calendars', {});
        await client.close();
        await waitSealed(backend);
      },
      (n) => n - 2,
    ],
    [
      'swap two records',
      async () => {
        await backend.sql('UPDATE audit_log SET seq = -1 WHERE seq = 4');
        await backend.sql('UPDATE audit_log SET seq = 4 WHERE seq = 5');
        await backend.sql('UPDATE audit_log SET seq = 5 WHERE seq = -1');
      },
      () => 4,
    ],
    [
      'append a forged record',
      () => appendCopyOfLast("'cancel_booking'", 'mac_version, key_id'),
      (n) => n + 1,
    ],
    [
      'append an unkeyed (old-format) record after keyed ones',
      () => appendCopyOfLast('tool', '1, NULL'),
      (n) => n + 1,
    ],
  ];

  it.each(attacks)('detects: %s', async (_name, attack, firstBroken) => {
    await restore();
    await attack();
    const { status, stdout, result } = await verify();
    const first = firstBroken(total);
    expect(status, stdout).toBe(1);
    expect(result.ok).toBe(false);
    expect(result.firstBroken.seq).toBe(first);
    expect(stdout).toContain(`BROKEN at seq ${first}`);
  });

  it('detects a rewrite by someone who holds the key only through the checkpoints, and bounds where it is', async () => {
    await restore();
    const key = keyOf(backend.databaseArgs);
    const records = await rows();
    // Edit record 5 and recompute every later MAC with the real key: the chain is self-consistent again.
    let prevHash = records[3]!.hash;
    for (const record of records.slice(4)) {
      const edited = record.seq === 5 ? { ...record, tool: 'list_calendars' } : record;
      const hash = key.recordMac(edited.seq, prevHash, edited);
      await backend.sql(
        `UPDATE audit_log SET tool = ${q(1)}, prev_hash = ${q(2)}, hash = ${q(3)} WHERE seq = ${q(4)}`,
        [edited.tool, prevHash, hash, edited.seq],
      );
      prevHash = hash;
    }
    expect((await verify(false)).status).toBe(0); // without checkpoints the rewrite is invisible
    const { status, stdout, result } = await verify();
    expect(status).toBe(1);
    const earlyCheckpointSeq = JSON.parse(readFileSync(checkpoints, 'utf8').split('\n')[0]!).seq as number;
    expect(result.firstBroken.seq).toBe(earlyCheckpointSeq + 1);
    expect(result.firstBroken.lastSeq).toBe(total);
    expect(result.firstBroken.seq).toBeLessThanOrEqual(5);
    expect(stdout).toContain('rewritten');
  });

  it('refuses a chain rewritten in the unkeyed format of earlier releases (a downgrade), unless told it is that old', async () => {
    await restore();
    // Whoever holds only the database rewrites every record as an old-format sha256 chain: valid as such.
    let prevHash = 'sha256:genesis';
    for (const record of await rows()) {
      const { seq, prevHash: _p, hash: _h, macVersion: _v, keyId: _k, operationId: _o, ...fields } = record;
      const body = canonicalize({
        prevHash,
        seq,
        entry: { ...fields, preview: JSON.parse(record.preview) },
      })!;
      const hash = `sha256:${createHash('sha256').update(body).digest('hex')}`;
      await backend.sql(
        `UPDATE audit_log SET mac_version = 1, key_id = NULL, prev_hash = ${q(1)}, hash = ${q(2)} WHERE seq = ${q(3)}`,
        [prevHash, hash, seq],
      );
      prevHash = hash;
    }
    const plain = await verify(false);
    expect(plain.status).toBe(1);
    expect(plain.result.firstBroken.seq).toBe(1);
    expect(plain.stdout).toMatch(/not keyed/);
    // Even told to accept unkeyed records, the checkpoints (keyed heads) do not match.
    const allowed = await runCli([
      'audit',
      'verify',
      '--allow-unkeyed',
      '--checkpoint',
      checkpoints,
      ...backend.databaseArgs,
    ]);
    expect(allowed.status).toBe(1);
  });

  it('every checkpoint of a seq must match: a second one appended for the rewritten head does not help', async () => {
    await restore();
    const key = keyOf(backend.databaseArgs);
    const records = await rows();
    const prevHash = records[records.length - 2]!.hash;
    const last = { ...records.at(-1)!, tool: 'list_calendars' };
    const hash = key.recordMac(last.seq, prevHash, last);
    await backend.sql(`UPDATE audit_log SET tool = ${q(1)}, hash = ${q(2)} WHERE seq = ${q(3)}`, [
      last.tool,
      hash,
      last.seq,
    ]);
    const doctored = join(dir, 'doctored.log');
    const appended = (await runCli(['audit', 'checkpoint', ...backend.databaseArgs])).stdout;
    writeFileSync(doctored, `${readFileSync(checkpoints, 'utf8')}${appended}`);
    const run = await runCli(['audit', 'verify', '--checkpoint', doctored, ...backend.databaseArgs]);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('rewritten');
  });

  it('refuses a forged checkpoint line', async () => {
    await restore();
    const forged = join(dir, 'forged.log');
    const line = JSON.parse(readFileSync(checkpoints, 'utf8').split('\n')[1]!);
    writeFileSync(forged, `${JSON.stringify({ ...line, seq: line.seq + 5 })}\n`);
    const run = await runCli(['audit', 'verify', '--checkpoint', forged, ...backend.databaseArgs]);
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('not authentic');
  });

  it('verifies iteratively: a 100,000-deep stored record neither crashes it nor hides what follows', async () => {
    await restore();
    const key = keyOf(backend.databaseArgs);
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const [last] = (await rows()).slice(-1);
    const entry = { ...last!, seq: last!.seq + 1, preview: deep, prevHash: last!.hash };
    // Sealed with the real key (as the server would), then an unkeyed one of the same shape.
    const values = (hash: string, version: number) => [
      entry.seq,
      entry.at,
      entry.tenantId,
      entry.subject,
      entry.clientId,
      entry.transport,
      entry.tool,
      entry.kind,
      entry.outcome,
      entry.errorCode,
      entry.blockedReason,
      entry.argumentsDigest,
      deep,
      entry.traceId,
      entry.durationMs,
      entry.prevHash,
      hash,
      version,
      version === 2 ? key.keyId : null,
      entry.operationId,
    ];
    const insert = `INSERT INTO audit_log VALUES (${values('', 2)
      .map((_, i) => q(i + 1))
      .join(', ')})`;
    await backend.sql(insert, values(key.recordMac(entry.seq, entry.prevHash, entry), 2));
    expect((await verify(false)).status).toBe(0);
    await backend.sql(`DELETE FROM audit_log WHERE seq = ${q(1)}`, [entry.seq]);
    await backend.sql(insert, values('sha256:whatever', 1));
    const { status, result } = await verify(false);
    expect(status).toBe(1);
    expect(result.firstBroken.seq).toBe(entry.seq);
    const tail = await runCli(['audit', 'tail', '-n', '1', '--json', ...backend.databaseArgs]);
    expect(tail.status).toBe(0);
  });
});

async function waitSealed(backend: Backend): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const [row] = await backend.sql<{ n: number | string }>('SELECT count(*) AS n FROM audit_pending');
    if (Number(row!.n) === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('audit entries stay pending');
}
