import { holdfastCommands, readDoc } from '../support/docs.js';
import type { Client } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { consoleHttp, csrfFor } from '../support/console-attack.js';
import { createOpenCalendar } from '../support/fixtures.js';
import { connectHttp } from '../support/mcp-clients.js';
import { signIn } from '../support/person.js';
import { spawnCli, spawnServer, tempDbPath } from '../support/spawn-server.js';

// docs/hotel-ops.md, the reservation inbox, run as written: its commands, then its worked
// example's tool calls (its JSON verbatim, the calendar id filled in) and the person's steps
// in the console as plain form posts, to the confirmed booking it promises.

const section = readDoc('docs/hotel-ops.md');
const commands = holdfastCommands(section);
/** Each JSON block of the worked example with the tool named last before it. */
const example = section.slice(section.indexOf('### Worked example'));
const calls = [...example.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => {
  const before = example.slice(0, m.index);
  const tools = [...before.matchAll(/`(th_hotel_\w+)`/g)];
  return { tool: tools.at(-1)![1]!, args: JSON.parse(m[1]!) as Record<string, unknown> };
});

async function contract(agent: Client, name: string, args: Record<string, unknown>) {
  const result = await agent.callTool({ name, arguments: args });
  return result.structuredContent as { success: boolean; data: Record<string, any>; error: unknown };
}

describe('docs/hotel-ops.md’s reservation inbox', () => {
  it('runs as written: import, read, check, submit, confirm, approve, complete', async () => {
    expect(calls.map((c) => c.tool)).toEqual([
      'th_hotel_list_message_conversation_messages',
      'th_hotel_query_case_context',
      'th_hotel_submit_task_results',
    ]);
    const db = tempDbPath();
    expect((await spawnCli(['db', 'migrate', '--db', db.path])).status).toBe(0);
    const operator = commands.filter((args) => args[0] !== 'serve');
    expect(operator.map((a) => a.slice(0, 2).join(' '))).toEqual([
      'inbox tokens',
      'inbox import',
      'inbox import',
    ]);
    const out: unknown[] = [];
    for (const args of operator) {
      const run = await spawnCli([...args, '--db', db.path, '--json']);
      expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      out.push(JSON.parse(run.stdout));
    }
    expect((out[0] as { secret: string }).secret).toMatch(/^hf_ing_/);
    const imported = out[1] as { conversation: string; created: boolean }[];
    expect(imported.map((r) => r.created)).toEqual([true, true]);
    expect(imported[0]!.conversation).toBe(imported[1]!.conversation);
    expect((out[2] as { created: boolean }[]).map((r) => r.created)).toEqual([false, false]);

    const serve = commands.find((args) => args[0] === 'serve')!;
    const server = await spawnServer([...serve.slice(1), '--no-seed'], { dbPath: db.path });
    const agent = await connectHttp(server.url, 'modern');
    try {
      const room = await createOpenCalendar(agent, 'Harbour room');
      const fill = (v: unknown): unknown =>
        typeof v === 'string' && v.startsWith('<calendar id')
          ? room
          : Array.isArray(v)
            ? v.map(fill)
            : v && typeof v === 'object'
              ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]))
              : v;
      const [read, check, submit] = calls.map((c) => ({
        ...c,
        args: fill(c.args) as Record<string, unknown>,
      }));
      const thread = await contract(agent, read!.tool, read!.args);
      expect(thread.data.message_count).toBe(2);
      expect(JSON.stringify(thread.data)).not.toMatch(/open\.gif|partner-travel\.example\/t/);
      expect((await contract(agent, check!.tool, check!.args)).data.target_object_validation.can_create).toBe(
        true,
      );
      const submitted = await contract(agent, submit!.tool, submit!.args);
      expect(submitted.success, JSON.stringify(submitted.error)).toBe(true);
      expect(submitted.data.items).toMatchObject([
        { source_event_index: 1, task_status: 'PENDING_CONFIRMATION' },
      ]);
      expect(submitted.data.mapping_diagnostics.event_id_mapping).toEqual([
        { event_id: 'E1', source_event_index: 1 },
      ]);

      // The person's two presses (confirm, approve), as the console's forms post them.
      const http = consoleHttp(server);
      const cookie = await signIn(new URL(server.url).origin, server.agent.email, server.agent.password);
      const taskId = submitted.data.items[0].task_id as string;
      const press = (path: string, purpose: string, fields: Record<string, string>) =>
        http.post(path, { ...fields, csrf: csrfFor(server, cookie, purpose) }, cookie);
      const confirmed = await press(`/console/inbox/tasks/${taskId}`, `console-inbox-task:${taskId}`, {
        action: 'confirm',
        version: '1',
      });
      const approvalId = /\/console\/approvals\/(.+)$/.exec(confirmed.headers.get('location') ?? '')![1]!;
      const approved = await press(`/console/approvals/${approvalId}`, `console-approval:${approvalId}`, {
        decision: 'approve',
      });
      // The same yes completes the task, and the person is sent back to the mail.
      expect(approved.status).toBe(303);
      expect(approved.headers.get('location')).toMatch(/^\/console\/inbox\/.+\?done=complete/);

      const after = await contract(agent, check!.tool, check!.args);
      expect(after.data.matched_order_records).toMatchObject([
        { status: 'CONFIRMED', confirmation_number: 'PT-5521' },
      ]);
      expect(after.data.target_object_validation).toMatchObject({ can_create: false, can_cancel: true });

      // Every step is in the audit trail: the agent's calls, the person's presses and the completion they made.
      const trail = await spawnCli(['audit', 'tail', '-n', '200', '--json', '--db', db.path]);
      const tools = trail.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { tool: string; outcome: string })
        .map((r) => `${r.tool}:${r.outcome}`);
      for (const step of [
        'th_hotel_list_message_conversation_messages:ok',
        'th_hotel_query_case_context:ok',
        'th_hotel_submit_task_results:ok',
        'console_approval:ok',
        'cli inbox import:ok',
      ])
        expect(tools, step).toContain(step);
      expect(tools.filter((t) => t === 'console_inbox_task:ok')).toHaveLength(2);
    } finally {
      await agent.close();
      await server.stop();
    }
  });
});
