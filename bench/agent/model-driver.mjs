// The model driver: the same tasks through a model behind an OpenAI-compatible chat endpoint
// (`/chat/completions` with tools). The model gets the task's goal and policy in words, the
// server's tools as functions, and one more function, ask_person, to talk to the user; it reads
// the answers' text, as the scripted agent does. Not run in CI (no model here): see
// docs/agent-bench.md. Every exchange is recorded; a recorded transcript replays without the
// endpoint, the ids of the new world put in place of the recorded ones.
import { countTokens } from 'gpt-tokenizer';
import { errorCode } from './answer-text.mjs';

const MAX_TURNS = 24;
const ASK_PERSON = {
  type: 'function',
  function: {
    name: 'ask_person',
    description:
      'Say something to the user you act for and get their answer: show them a hold, ask them to approve on the link an answer gave, or to pay.',
    parameters: {
      type: 'object',
      properties: { message: { type: 'string', description: 'What you say to the user.' } },
      required: ['message'],
    },
  },
};

// OpenAI function names allow letters, digits, _ and -: the catalog's dotted names are mapped.
const functionName = (tool) => tool.replaceAll('.', '__');

const systemPrompt = (task) =>
  [
    'You are an agent booking time for the user through the Holdfast tools.',
    'Do what the user asks; never confirm or cancel without the user approving it; use ask_person to talk to them.',
    task.intent.policy
      ? `Your policy: ${JSON.stringify(task.intent.policy)}. Refuse, without calling any tool that writes, what it forbids.`
      : '',
    'When you are done, answer with one line saying what happened.',
  ]
    .filter(Boolean)
    .join('\n');

/** The model's next message: from the endpoint, or the next one of a recorded transcript. */
function modelSource({ baseUrl, apiKey, model, replay }) {
  if (replay) {
    let turn = 0;
    return async () => {
      const next = replay.turns[turn++];
      if (!next) throw new Error('the recorded transcript ended');
      return next.message;
    };
  }
  return async (messages, tools) => {
    const response = await fetch(`${baseUrl.replace(/\/+$/, '')}/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
      },
      body: JSON.stringify({ model, messages, tools, temperature: 0 }),
    });
    if (!response.ok)
      throw new Error(
        `the model endpoint answered ${response.status}: ${(await response.text()).slice(0, 300)}`,
      );
    return (await response.json()).choices[0].message;
  };
}

/**
 * Maps the ids a recorded run saw to those this run sees, pairing them by their order of
 * appearance in the same answer (cal_…, bk_…, HF-…, UUIDs).
 */
function idMapper() {
  const map = new Map();
  const ids = (text) =>
    text.match(
      /\b(?:cal|bk|tok|usr)_[\w-]+|HF-[\w-]+|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
    ) ?? [];
  return {
    learn(recorded, seen) {
      const before = ids(recorded);
      const now = ids(seen);
      before.forEach((id, i) => now[i] && !map.has(id) && map.set(id, now[i]));
    },
    apply: (text) =>
      text.replace(/\b(?:cal|bk|tok|usr)_[\w-]+|HF-[\w-]+|[0-9a-f-]{36}/g, (id) => map.get(id) ?? id),
  };
}

/**
 * Runs one task with a model. `person.respond(message)` is the user answering. Returns the
 * outcome (the model's last words), the ledger and the transcript.
 */
export async function runModelAgent(client, task, person, options) {
  const spent = { calls: 0, definitionTokens: 0, answerTokens: 0, answerBytes: 0, errors: {}, texts: [] };
  const { tools } = await client.listTools();
  const functions = [
    ...tools.map((tool) => ({
      type: 'function',
      function: {
        name: functionName(tool.name),
        description: tool.description ?? '',
        parameters: tool.inputSchema,
      },
    })),
    ASK_PERSON,
  ];
  const byFunction = new Map(tools.map((tool) => [functionName(tool.name), tool.name]));
  spent.definitionTokens += countTokens(JSON.stringify(functions));
  const next = modelSource(options);
  const ids = idMapper();
  const transcript = { task: task.id, model: options.model ?? null, turns: [] };
  const messages = [
    { role: 'system', content: systemPrompt(task) },
    { role: 'user', content: task.goal },
  ];
  for (let turn = 0; turn < MAX_TURNS; turn += 1) {
    let message = await next(messages, functions);
    if (options.replay) message = JSON.parse(ids.apply(JSON.stringify(message)));
    const record = { message, results: [] };
    transcript.turns.push(record);
    messages.push(message);
    if (!message.tool_calls?.length)
      return { outcome: String(message.content ?? '').trim(), ...spent, transcript };
    for (const call of message.tool_calls) {
      const args = JSON.parse(call.function.arguments || '{}');
      let text;
      if (call.function.name === 'ask_person') text = await person.respond(String(args.message ?? ''));
      else {
        spent.calls += 1;
        const name = byFunction.get(call.function.name) ?? call.function.name;
        const result = await client.callTool({ name, arguments: args });
        text = result.content.map((part) => part.text ?? '').join('\n');
        spent.answerBytes += Buffer.byteLength(text);
        spent.answerTokens += countTokens(text);
        spent.texts.push(text);
        const code = errorCode(text);
        if (code) spent.errors[code] = (spent.errors[code] ?? 0) + 1;
      }
      const recorded = options.replay?.turns[turn]?.results[record.results.length];
      if (recorded !== undefined) ids.learn(recorded, text);
      record.results.push(text);
      messages.push({ role: 'tool', tool_call_id: call.id, content: text });
    }
  }
  return { outcome: `gave up after ${MAX_TURNS} turns`, ...spent, transcript };
}

/**
 * pass^k as τ²-bench defines it: the chance that k trials of a task all pass, estimated from n
 * trials with c passes as C(c, k) / C(n, k), averaged over tasks.
 */
export function passHatK(passesPerTask, trials, k) {
  const choose = (n, r) =>
    r > n ? 0 : Array.from({ length: r }, (_, i) => (n - i) / (r - i)).reduce((a, b) => a * b, 1);
  const per = passesPerTask.map((c) => choose(c, k) / choose(trials, k));
  return per.reduce((a, b) => a + b, 0) / Math.max(per.length, 1);
}
