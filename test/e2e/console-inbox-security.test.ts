import Database from 'better-sqlite3';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleCast } from '../support/console-attack.js';
import { consoleCast, consoleHttp, csrfFor, expectStrictConsolePage } from '../support/console-attack.js';
import { createOpenCalendar, futureHour } from '../support/fixtures.js';
import { connectHttp } from '../support/mcp-clients.js';
import type { RunningServer } from '../support/spawn-server.js';
import { runCli, spawnServer } from '../support/spawn-server.js';

// Deciding inbox tasks and reading mail, attacked: the agent with its bearer token (the one
// that submitted the task), a viewer and another tenant's owner with valid form tokens of their
// own, forged CSRF, a stale version. Every attempt is counted; 0 may succeed and nothing moves.

let server: RunningServer;
let agent: Client;
let cast: ConsoleCast;
let http: ReturnType<typeof consoleHttp>;
let taskId = '';
let conversationId = '';
let secret = '';
let room = '';
let mailCount = 0;

function snapshot() {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return {
      tasks: db.prepare('SELECT id, status, version FROM inbox_tasks ORDER BY id').all(),
      bookings: (db.prepare('SELECT count(*) AS n FROM bookings').get() as { n: number }).n,
      approvals: (db.prepare('SELECT count(*) AS n FROM approvals').get() as { n: number }).n,
    };
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  server = await spawnServer(['--no-seed', '--profile', 'hotel-ops']);
  agent = await connectHttp(server.url, 'modern');
  room = await createOpenCalendar(agent, 'Room 12');
  ({ secret } = JSON.parse(
    (await runCli(['inbox', 'tokens', 'create', '--name', 'gw', '--db', server.dbPath, '--json'])).stdout,
  ) as { secret: string });
  await fetch(new URL('/api/inbox/messages', server.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      external_message_id: 'x-1',
      subject: 'Book room 12 for Mr Ode, +44 20 7946 0000',
      received_at: new Date().toISOString(),
      text_body: 'Mr Ode, ode@example.com, +44 20 7946 0000',
    }),
  });
  const start = futureHour(4, 10);
  const submitted = await agent.callTool({
    name: 'th_hotel_submit_task_results',
    arguments: {
      source_message: {
        source_message_id: 'x-1',
        subject: null,
        from: null,
        cc: [],
        received_at: null,
        source_channel: 'Email',
      },
      message_events: [
        {
          event_id: 'E1',
          event_type: 'reservation.create',
          case_keys: { confirmation_number: 'SEC-1' },
          booking: { calendar_id: room, start, end: new Date(Date.parse(start) + 3_600_000).toISOString() },
        },
      ],
      case_candidates: [],
      extraction_warnings: [],
      unhandled_current_intents: [],
    },
  });
  const data = (submitted.structuredContent as { data: { items: { task_id: string }[] } }).data;
  taskId = data.items[0]!.task_id;
  const db = new Database(server.dbPath, { readonly: true });
  conversationId = (
    db.prepare('SELECT conversation_id AS c FROM inbox_tasks WHERE id = ?').get(taskId) as { c: string }
  ).c;
  db.close();
  cast = await consoleCast(server);
  http = consoleHttp(server);
}, 60_000);

afterAll(async () => {
  await agent?.close();
  await server?.stop();
});

describe('the console inbox, attacked', () => {
  it('no bearer token, forged CSRF, viewer, other tenant or stale version decides a task', async () => {
    const before = snapshot();
    const { owner, viewer, approver, foreigner } = cast;
    const token = (cookie: string) => csrfFor(server, cookie, `console-inbox-task:${taskId}`);
    const confirm = { action: 'confirm', version: '1' };
    const attempts: [string, Record<string, string>, Record<string, string>, number[]][] = [
      ['the agent’s bearer token', confirm, { authorization: `Bearer ${server.agent.token}` }, [303]],
      ['owner, no CSRF', confirm, { cookie: owner }, [403]],
      ['owner, forged CSRF', { ...confirm, csrf: 'x' }, { cookie: owner }, [403]],
      ['owner, another session’s CSRF', { ...confirm, csrf: token(approver) }, { cookie: owner }, [403]],
      ['viewer with a valid form token', { ...confirm, csrf: token(viewer) }, { cookie: viewer }, [403]],
      [
        'other tenant with a valid form token',
        { ...confirm, csrf: token(foreigner) },
        { cookie: foreigner },
        [404],
      ],
      [
        'owner, stale version',
        { action: 'confirm', version: '9', csrf: token(owner) },
        { cookie: owner },
        [409],
      ],
      [
        'owner, unknown action',
        { action: 'approve', version: '1', csrf: token(owner) },
        { cookie: owner },
        [403],
      ],
    ];
    let succeeded = 0;
    for (const [who, fields, headers, expected] of attempts) {
      const answer = await http.post(`/console/inbox/tasks/${taskId}`, fields, undefined, headers);
      if (answer.status === 303 && !answer.headers.get('location')?.startsWith('/login')) succeeded++;
      expect(expected, `${who}: ${answer.status}`).toContain(answer.status);
    }
    expect(succeeded).toBe(0);
    expect(snapshot()).toEqual(before);

    // The rules, not a broken form: an approver with the form's token confirms it.
    const done = await http.post(
      `/console/inbox/tasks/${taskId}`,
      { ...confirm, csrf: token(approver) },
      approver,
    );
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toMatch(/^\/console\/approvals\//);
    expect(snapshot().bookings).toBe(before.bookings + 1);
  });

  it('mail is read only by owners and approvers of its tenant; every read is recorded', async () => {
    const { owner, viewer, foreigner } = cast;
    const path = `/console/inbox/${conversationId}`;
    const reads = () => {
      const db = new Database(server.dbPath, { readonly: true });
      try {
        return (db.prepare('SELECT count(*) AS n FROM inbox_body_reads').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    const start = reads();
    let leaked = 0;
    for (const [who, headers] of [
      ['viewer', { cookie: viewer }],
      ['other tenant', { cookie: foreigner }],
      ['bearer', { authorization: `Bearer ${server.agent.token}` }],
    ] as const) {
      for (const p of ['/console/inbox', path]) {
        const answer = await http.get(p, headers);
        const text = await answer.text();
        if (text.includes('ode@example.com') || text.includes('7946')) leaked++;
        // Another tenant's owner has an inbox of their own (empty): a 200 there is no leak.
        const allowed = who === 'other tenant' && p === '/console/inbox' ? [200] : [303, 403, 404];
        expect(allowed, `${who} ${p}`).toContain(answer.status);
        if (answer.status === 200) expect(text).not.toContain(conversationId);
      }
    }
    expect(leaked).toBe(0);
    expect(reads()).toBe(start);
    const asOwner = await http.get(path, { cookie: owner });
    await expectStrictConsolePage(asOwner, path);
    expect(reads()).toBe(start + 1);
    expect(await (await http.get(path, { cookie: owner })).text()).toContain('ode@example.com');
    expect(reads()).toBe(start + 2);
  });

  it('Confirm and Reject pressed together: one wins, and a rejected task leaves nothing live', async () => {
    let stray = 0;
    for (let round = 0; round < 3; round++) {
      const id = await newCreateTask({ hourAhead: 20 + round });
      const heldBefore = liveHolds();
      const token = csrfFor(server, cast.owner, `console-inbox-task:${id}`);
      const [a, b] = await Promise.all(
        ['confirm', 'reject'].map((action) =>
          http.post(`/console/inbox/tasks/${id}`, { action, version: '1', csrf: token }, cast.owner),
        ),
      );
      expect([a!.status, b!.status].sort()).toEqual([303, 409]);
      const { task, held, pending } = taskState(id);
      expect(['AWAITING_APPROVAL', 'REJECTED']).toContain(task.status);
      if (task.status === 'REJECTED' && (held > 0 || pending > 0 || liveHolds() !== heldBefore)) stray++;
      if (task.status === 'AWAITING_APPROVAL') expect([held, pending]).toEqual([1, 1]);
    }
    expect(stray).toBe(0);
  });

  it('a confirmation number another live booking carries is refused before anything is held', async () => {
    const id = await newCreateTask({ hourAhead: 30, confirmation: 'SEC-1' });
    const before = snapshot();
    const answer = await http.post(
      `/console/inbox/tasks/${id}`,
      { action: 'confirm', version: '1', csrf: csrfFor(server, cast.owner, `console-inbox-task:${id}`) },
      cast.owner,
    );
    // The field the person must change (one mapping for every page: a refused field is 400).
    expect(answer.status).toBe(400);
    expect(await answer.text()).toContain('confirmationNumber: SEC-1 belongs to another booking');
    expect(snapshot().bookings).toBe(before.bookings);
    expect(taskState(id).task.status).toBe('PENDING_CONFIRMATION');
  });

  it('a cancellation acts on the booking named when it was submitted, shown on its card', async () => {
    const mail = await ingestMail();
    const submitted = await agent.callTool({
      name: 'th_hotel_submit_task_results',
      arguments: v3(mail, [
        { event_id: 'E1', event_type: 'reservation.cancel', case_keys: { confirmation_number: 'SEC-1' } },
        { event_id: 'E2', event_type: 'reservation.cancel', target_object_id: 'ORDER:bk_not_there' },
      ]),
    });
    const items = (submitted.structuredContent as { data: { items: Record<string, unknown>[] } }).data.items;
    expect(items[0]).toMatchObject({ transition_kind: 'task' });
    expect(String(items[0]!.object_id)).toMatch(/^ORDER:bk_/);
    expect(items[1]).toMatchObject({ transition_kind: 'adapter_contract_error', task_id: null });
    const page = await (
      await http.get(`/console/inbox/${conversationOf(String(items[0]!.task_id))}`, { cookie: cast.owner })
    ).text();
    expect(page).toContain(`data-target="${String(items[0]!.object_id).slice(6)}"`);
  });
});

function v3(sourceMessageId: string, events: unknown[]) {
  return {
    source_message: {
      source_message_id: sourceMessageId,
      subject: null,
      from: null,
      cc: [],
      received_at: null,
      source_channel: 'Email',
    },
    message_events: events,
    case_candidates: [],
    extraction_warnings: [],
    unhandled_current_intents: [],
  };
}

async function ingestMail(): Promise<string> {
  const id = `x-${++mailCount + 1}`;
  const posted = await fetch(new URL('/api/inbox/messages', server.url), {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      external_message_id: id,
      subject: `Mail ${id}`,
      received_at: new Date().toISOString(),
      text_body: 'Book',
    }),
  });
  expect(posted.status).toBe(201);
  return id;
}

/** A fresh mail with one new-reservation task; the task's id. */
async function newCreateTask(options: { hourAhead: number; confirmation?: string }): Promise<string> {
  const start = futureHour(4, options.hourAhead);
  const result = await agent.callTool({
    name: 'th_hotel_submit_task_results',
    arguments: v3(await ingestMail(), [
      {
        event_id: 'E1',
        event_type: 'reservation.create',
        ...(options.confirmation ? { case_keys: { confirmation_number: options.confirmation } } : {}),
        booking: { calendar_id: room, start, end: new Date(Date.parse(start) + 3_600_000).toISOString() },
      },
    ]),
  });
  return (result.structuredContent as { data: { items: { task_id: string }[] } }).data.items[0]!.task_id;
}

function conversationOf(task: string): string {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return (
      db.prepare('SELECT conversation_id AS c FROM inbox_tasks WHERE id = ?').get(task) as { c: string }
    ).c;
  } finally {
    db.close();
  }
}

function liveHolds(): number {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    return (db.prepare("SELECT count(*) AS n FROM bookings WHERE status = 'HELD'").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** The task, and how many live holds and open approvals it made. */
function taskState(id: string) {
  const db = new Database(server.dbPath, { readonly: true });
  try {
    const task = db
      .prepare('SELECT status, object_id, approval_id FROM inbox_tasks WHERE id = ?')
      .get(id) as {
      status: string;
      object_id: string | null;
      approval_id: string | null;
    };
    const bookingId = task.object_id?.slice(6) ?? '';
    const held = (
      db.prepare("SELECT count(*) AS n FROM bookings WHERE id = ? AND status = 'HELD'").get(bookingId) as {
        n: number;
      }
    ).n;
    const pending = (
      db
        .prepare("SELECT count(*) AS n FROM approvals WHERE booking_id = ? AND status = 'PENDING'")
        .get(bookingId) as { n: number }
    ).n;
    return { task, held, pending };
  } finally {
    db.close();
  }
}
