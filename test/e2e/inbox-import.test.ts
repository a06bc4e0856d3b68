import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { spawnCli, tempDbPath } from '../support/spawn-server.js';

// `holdfast inbox import` against a fresh database: .eml threading by headers, a re-import
// that adds nothing, JSON files, and refusals that name the problem and store nothing.

const FIXTURES = 'test/fixtures/mail';

function rows(path: string, sql: string): unknown[] {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare(sql).all();
  } finally {
    db.close();
  }
}

describe('holdfast inbox import', () => {
  it('threads .eml files by their headers and adds each message once', async () => {
    const db = tempDbPath();
    try {
      expect((await spawnCli(['db', 'migrate', '--db', db.path])).status).toBe(0);
      const imported = await spawnCli([
        'inbox',
        'import',
        'examples/inbox/02-reply.eml',
        'examples/inbox/01-request.eml',
        `${FIXTURES}/07-booking-confirmation-nested-tables.eml`,
        '--db',
        db.path,
        '--json',
      ]);
      expect(imported.status, imported.stderr).toBe(0);
      const first = JSON.parse(imported.stdout) as { externalMessageId: string; conversation: string }[];
      // The reply came first: it starts a thread of its own (documented); the request does too.
      expect(new Set(first.map((r) => r.conversation)).size).toBe(3);

      const again = await spawnCli([
        'inbox',
        'import',
        'examples/inbox/01-request.eml',
        '--db',
        db.path,
        '--json',
      ]);
      expect((JSON.parse(again.stdout) as { created: boolean }[])[0]!.created).toBe(false);
      expect(rows(db.path, 'SELECT id FROM inbox_messages')).toHaveLength(3);
      const raw = rows(db.path, 'SELECT raw FROM inbox_raw_bodies') as { raw: Buffer }[];
      expect(raw.some((r) => r.raw.toString('utf8').includes('open.gif'))).toBe(true);
      const stored = rows(db.path, 'SELECT html_sanitized FROM inbox_messages') as {
        html_sanitized: string | null;
      }[];
      expect(stored.some((r) => r.html_sanitized?.includes('open.gif'))).toBe(false);
    } finally {
      db.cleanup();
    }
  });

  it('in order, a reply joins its request’s conversation; a JSON file joins by its headers too', async () => {
    const db = tempDbPath();
    try {
      expect((await spawnCli(['db', 'migrate', '--db', db.path])).status).toBe(0);
      const json = db.path.replace(/holdfast\.db$/, 'later.json');
      writeFileSync(
        json,
        JSON.stringify([
          {
            external_message_id: 'later-1',
            message_id: '<later-1@partner-travel.example>',
            references: ['<req-5521@partner-travel.example>', '<req-5521-b@partner-travel.example>'],
            subject: 'Re: Re: Booking request',
            received_at: '2026-12-01T10:00:00+01:00',
            text_body: 'Confirmed on our side.',
          },
        ]),
      );
      const run = await spawnCli([
        'inbox',
        'import',
        'examples/inbox/01-request.eml',
        'examples/inbox/02-reply.eml',
        json,
        '--db',
        db.path,
        '--json',
      ]);
      expect(run.status, run.stderr).toBe(0);
      const results = JSON.parse(run.stdout) as { conversation: string; externalMessageId: string }[];
      expect(results.map((r) => r.externalMessageId)).toEqual([
        '<req-5521@partner-travel.example>',
        '<req-5521-b@partner-travel.example>',
        'later-1',
      ]);
      expect(new Set(results.map((r) => r.conversation))).toEqual(
        new Set(['<req-5521@partner-travel.example>']),
      );
      const table = await spawnCli(['inbox', 'import', 'examples/inbox/02-reply.eml', '--db', db.path]);
      expect(table.stdout).toContain('already there');

      writeFileSync(
        json,
        JSON.stringify({ external_message_id: 'x', received_at: '2026-12-01T10:00:00', spy: 1 }),
      );
      const refused = await spawnCli(['inbox', 'import', json, '--db', db.path]);
      expect(refused.status).not.toBe(0);
      expect(refused.stderr).toContain('spy');
      expect(refused.stderr).not.toMatch(/at .*\.js:\d+/);
      expect(rows(db.path, 'SELECT id FROM inbox_messages')).toHaveLength(3);
    } finally {
      db.cleanup();
    }
  });
});
