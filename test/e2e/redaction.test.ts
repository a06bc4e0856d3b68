import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { call, connectHttp } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { spawnServer, untilSealed } from '../support/spawn-server.js';

let server: RunningServer;
beforeAll(async () => {
  server = await spawnServer(['--no-seed'], { writePolicy: 'direct' });
});
afterAll(() => server.stop());

// Each secret is unique, so finding it anywhere is a leak. Valid shapes are stored and answered;
// the others are refused at the edge. Either way the trail and the logs must never hold them.
const shapes: [string, Record<string, unknown>, string[]][] = [
  [
    'email and phone',
    { name: 'Ada Lovelace', email: 'ada.lovelace@example.com', phone: '+44 20 7946 0958' },
    ['ada.lovelace@example.com', '7946 0958', 'Lovelace'],
  ],
  [
    'notes with contact data',
    { notes: 'Call me on 0151 496 0123 or mail ida@example.org' },
    ['0151 496 0123', 'ida@example.org'],
  ],
  [
    'extra fields',
    { extra: { cell: '+1 202 555 0147', address: '12 Grimmauld Place', whatsapp: 5550148 } },
    ['555 0147', 'Grimmauld', '5550148'],
  ],
  ['a locale and a name', { name: 'Zoë Quintero-Ñúñez', locale: 'es-MX' }, ['Quintero']],
  ['a numeric phone (refused)', { phone: 4915112345678 }, ['4915112345678']],
  ['nested contact (refused)', { contact: { e: 'x.hidden@example.net' } }, ['x.hidden@example.net']],
  ['an Address field (refused)', { Address: '221B Baker Street' }, ['Baker Street']],
  ['a cell field (refused)', { cell: '+33 6 12 34 56 78' }, ['12 34 56 78']],
];

describe('redaction by schema', () => {
  it('no contact value appears in clear in any audit row, idempotency row or log line', async () => {
    const client = await connectHttp(server.url, 'modern');
    const room = await createOpenCalendar(client, 'Redaction room');
    let hour = 0;
    const answers: { ok: boolean; stored: boolean }[] = [];
    for (const [, customer] of shapes) {
      hour++;
      const held = await call<any>(client, 'hold_slot', {
        calendarIds: [room],
        start: futureHour(2, hour),
        end: futureHour(2, hour + 1),
        customer,
        label: `Visit ${hour}: call Ada on 07700 900${100 + hour}`,
        idempotencyKey: randomUUID(),
      });
      answers.push({
        ok: held.ok,
        stored: held.ok && JSON.stringify(held.data.booking.customer) === JSON.stringify(customer),
      });
    }
    await client.close();
    // The valid shapes were stored and answered exactly as given; the invalid ones refused.
    expect(answers.map((a) => a.ok)).toEqual([true, true, true, true, false, false, false, false]);
    expect(answers.filter((a) => a.ok).every((a) => a.stored)).toBe(true);
    await untilSealed(server.dbPath);
    const db = new Database(server.dbPath, { readonly: true });
    const auditRows = db.prepare('SELECT * FROM audit_log').all() as { tool: string; preview: string }[];
    const audit = JSON.stringify(auditRows);
    const idempotency = JSON.stringify(db.prepare('SELECT * FROM idempotency').all());
    db.close();
    const logs = server.logs.join('');
    const secrets = [...shapes.flatMap(([, , s]) => s), '07700 900'];
    for (const secret of secrets) {
      expect(audit, `audit leaks ${secret}`).not.toContain(secret);
      expect(logs, `logs leak ${secret}`).not.toContain(secret);
      expect(idempotency, `idempotency rows keep ${secret}`).not.toContain(secret);
    }
    // What the trail does say: which fields were given, and a keyed digest to match them by.
    const first = JSON.parse(auditRows.find((r) => r.tool === 'hold_slot')!.preview);
    expect(first.customer).toEqual({
      fields: ['name', 'email', 'phone'],
      digest: expect.stringMatching(/^hmac:/),
    });
  });
});
