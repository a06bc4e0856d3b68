import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passHatK } from '../../bench/agent/model-driver.mjs';

const run = promisify(execFile);

interface Message {
  role: string;
  content?: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/**
 * A stand-in for a model behind an OpenAI-compatible endpoint, for the plain-booking task: it
 * decides each next step from the conversation it is sent (the answers' text), as a model would.
 */
function nextStep(messages: Message[]): Message {
  const calls = messages.flatMap((m) => m.tool_calls ?? []);
  const last = messages.at(-1)!;
  const said = (tool: string) => calls.filter((c) => c.function.name === tool).length;
  const call = (name: string, args: object): Message => ({
    role: 'assistant',
    content: null,
    tool_calls: [{ id: `call_${calls.length + 1}`, function: { name, arguments: JSON.stringify(args) } }],
  });
  const text = String(last.content ?? '');
  if (calls.length === 0) return call('list_calendars', { query: 'jade' });
  const previous = calls.at(-1)!.function.name;
  const argsOf = (tool: string) =>
    JSON.parse(calls.filter((c) => c.function.name === tool).at(-1)!.function.arguments) as Record<
      string,
      any
    >;
  if (previous === 'list_calendars') {
    const from = new Date(Math.floor((Date.now() + 3 * 86_400_000) / 86_400_000) * 86_400_000);
    return call('find_slots', {
      calendarIds: [/- id: (cal_\S+)/.exec(text)![1]],
      from: from.toISOString(),
      to: new Date(from.getTime() + 2 * 86_400_000).toISOString(),
      durationMinutes: 60,
      limit: 5,
    });
  }
  if (previous === 'find_slots') {
    const [, date, offset, time] = /^(\d{4}-\d\d-\d\d) \w{3} ([+-]\d\d:\d\d)[^\n]*?: (\d\d:\d\d)/m.exec(
      text,
    )!;
    const start = `${date}T${time}:00${offset}`;
    return call('hold_slot', {
      calendarIds: argsOf('find_slots').calendarIds,
      start,
      end: new Date(Date.parse(start) + 3_600_000).toISOString(),
      customer: { name: 'Grace Hopper' },
      idempotencyKey: randomUUID(),
    });
  }
  const booking = () =>
    /booking (bk_\S+) · \S+ · \w+ · version (\d+)/.exec(
      messages
        .filter((m) => m.role === 'tool')
        .map((m) => m.content)
        .join('\n'),
    )!;
  if (previous === 'hold_slot')
    return call('ask_person', { message: `I hold ${booking()[1]}. Shall I confirm it?` });
  if (
    (previous === 'ask_person' && said('confirm_booking') === 0) ||
    (previous === 'ask_person' && said('ask_person') === 2)
  ) {
    const approvalId = /^\s*approvalId: ([0-9a-f-]{36})$/m.exec(
      messages
        .filter((m) => m.role === 'tool')
        .map((m) => m.content)
        .join('\n'),
    )?.[1];
    return call('confirm_booking', {
      bookingId: booking()[1],
      expectedVersion: Number(booking()[2]),
      idempotencyKey: randomUUID(),
      ...(approvalId ? { approval: { approvalId } } : {}),
    });
  }
  if (previous === 'confirm_booking' && /^error APPROVAL_REQUIRED/.test(text))
    return call('ask_person', { message: `Please approve: ${/approveUrl: (\S+)/.exec(text)?.[1]}` });
  return { role: 'assistant', content: 'Booked an hour in the Jade Room for Grace Hopper.' };
}

let endpoint: Server;
let baseUrl: string;
const seen: { tools: { function: { name: string } }[]; messages: Message[] }[] = [];
const dir = mkdtempSync(join(tmpdir(), 'agent-bench-model-'));

beforeAll(async () => {
  endpoint = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const asked = JSON.parse(body) as { tools: { function: { name: string } }[]; messages: Message[] };
      seen.push(asked);
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ choices: [{ message: nextStep(asked.messages) }] }));
    });
  });
  await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/v1`;
});
afterAll(() => {
  endpoint.close();
  rmSync(dir, { recursive: true, force: true });
});

async function bench(args: string[], env: Record<string, string> = {}) {
  return run(
    process.execPath,
    ['bench/agent/run.mjs', '--only', 'plain-booking', '--surface', 'flat', '--trials', '2', ...args],
    {
      env: { ...process.env, ...env },
    },
  ).then(
    ({ stdout }) => ({ code: 0, stdout }),
    (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
  );
}

describe('the model driver (an OpenAI-compatible endpoint; here a stand-in)', () => {
  it('drives a task through chat completions with the tools as functions and ask_person; pass^1 over two trials; transcripts recorded', async () => {
    const live = await bench(['--model', '--record', dir], {
      AGENT_BENCH_BASE_URL: baseUrl,
      AGENT_BENCH_MODEL: 'stand-in',
    });
    expect(live.stdout).toContain('2 of 2 runs passed');
    expect(live.stdout).toContain('stand-in: pass^1 1.00 over 2 trial(s)');
    expect(live.code).toBe(0);
    // What the model was sent: valid function names, ask_person, and answers as text only.
    const names = seen[0]!.tools.map((t) => t.function.name);
    expect(names).toEqual(
      expect.arrayContaining(['find_slots', 'hold_slot', 'confirm_booking', 'ask_person']),
    );
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    const toolMessages = seen.flatMap((s) => s.messages).filter((m) => m.role === 'tool');
    expect(toolMessages.length).toBeGreaterThan(5);
    for (const m of toolMessages) expect(m.content).not.toContain('structuredContent');
    expect(readdirSync(dir).sort()).toEqual(['plain-booking@flat#1.json', 'plain-booking@flat#2.json']);
  }, 120_000);

  it('a recorded transcript replays without the endpoint, the new world’s ids in place of the recorded ones', async () => {
    const asked = seen.length;
    const replayed = await bench(['--replay', dir], { AGENT_BENCH_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(replayed.stdout).toContain('2 of 2 runs passed');
    expect(replayed.stdout).toContain('(replayed): pass^1 1.00');
    expect(replayed.code).toBe(0);
    expect(seen.length).toBe(asked);
  }, 120_000);

  it('pass^k is τ²-bench’s estimator: the chance that k trials all pass', () => {
    expect(passHatK([4, 2, 0], 4, 1)).toBeCloseTo(0.5);
    expect(passHatK([4, 2, 0], 4, 4)).toBeCloseTo(1 / 3);
    expect(passHatK([3], 4, 2)).toBeCloseTo(0.5);
  });
});
