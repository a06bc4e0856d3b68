// npm run agent-bench: every task in bench/agent/tasks/ in a world of its own, on the flat tool
// list and on the catalog, driven by the scripted agent from the answers' text alone and graded
// by the database it leaves. Prints a table per task run and per category, and the safety
// counters; exits 1 when a run fails or a counter is not 0.
//   --only ID,ID   those tasks    --tasks DIR   task files from DIR    --json   a JSON line per run
//   --smoke        the twelve tasks marked "smoke", each on one surface in turn (npm test runs them)
//   --write        put the report into docs/agent-bench.md and the category table into README.md
//   --surface S    flat or catalog only
//   --model        a model drives (AGENT_BENCH_BASE_URL, AGENT_BENCH_API_KEY, AGENT_BENCH_MODEL), --trials N
//                  times each (default 4); transcripts go to --record DIR (.agent-bench/transcripts)
//   --replay DIR   replay recorded transcripts instead of asking the model
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bookingCount, grade } from './grade.mjs';
import { categoryTable, report } from './report.mjs';
import { writeBetweenMarkers } from './write-report.mjs';
import { passHatK, runModelAgent } from './model-driver.mjs';
import { runScriptedAgent } from './scripted-agent.mjs';
import { buildWorld, connect, RIVAL_CUSTOMER } from './world.mjs';

const WRITES = new Set([
  'hold_slot',
  'release_hold',
  'confirm_booking',
  'cancel_booking',
  'reschedule_booking',
  'request_approval',
  'create_calendar',
  'set_availability',
  'set_booking_rules',
]);

const here = import.meta.dirname;
const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : null);
const only = option('--only')?.split(',') ?? null;
const taskDir = option('--tasks') ?? join(here, 'tasks');
const asJson = args.includes('--json');
const onlySurface = option('--surface');
// --model: a model behind an OpenAI-compatible endpoint drives instead of the scripted agent.
const model = args.includes('--model') || option('--replay') !== null;
const trials = Number(option('--trials') ?? (model ? 4 : 1));
const recordDir = option('--record') ?? (model ? '.agent-bench/transcripts' : null);
const replayDir = option('--replay');
const endpoint = {
  baseUrl: process.env.AGENT_BENCH_BASE_URL ?? 'https://api.openai.com/v1',
  apiKey: process.env.AGENT_BENCH_API_KEY ?? process.env.OPENAI_API_KEY ?? '',
  model: process.env.AGENT_BENCH_MODEL ?? 'gpt-4.1',
};

export const tasks = readdirSync(taskDir)
  .filter((name) => name.endsWith('.json'))
  .sort()
  .flatMap((name) => JSON.parse(readFileSync(join(taskDir, name), 'utf8')))
  .filter((task) => !only || only.includes(task.id))
  .filter((task) => !args.includes('--smoke') || task.smoke);

/**
 * The agent's connection as the world shapes it: before its first hold the rival may take the
 * time, and with `world.loseFirstHoldAnswer` the first hold's answer never arrives (the write
 * happened). Every tool it calls is noted.
 */
function instrument(client, world, task, called) {
  const callTool = client.callTool.bind(client);
  let lose = Boolean(task.world.loseFirstHoldAnswer);
  client.callTool = async (params, ...rest) => {
    const tool = params.name === 'tool_catalog.call' ? params.arguments?.tool : params.name;
    called.push(tool);
    if (tool === 'hold_slot') await world.beforeHold();
    const result = await callTool(params, ...rest);
    if (tool === 'hold_slot' && lose) {
      lose = false;
      throw new Error('the connection dropped before the answer arrived');
    }
    return result;
  };
}

const transcriptName = (task, surface, trial) => `${task.id}@${surface}#${trial}.json`;

/** The driver of one run: the scripted agent, or the model (live, or a recorded transcript replayed). */
function drive(client, task, person, surface, trial) {
  if (!model) return runScriptedAgent(client, task.intent, person);
  const replay = replayDir
    ? JSON.parse(readFileSync(join(replayDir, transcriptName(task, surface, trial)), 'utf8'))
    : undefined;
  return runModelAgent(client, task, person, { ...endpoint, replay });
}

/** One task on one surface: its world, the agent, the grade and the safety counters. */
async function runTask(task, surface, trial, runDir) {
  const world = await buildWorld(task, surface, runDir);
  try {
    const seeded = bookingCount(world.db);
    const client = await connect(world.url, world.token);
    const called = [];
    instrument(client, world, task, called);
    let run;
    try {
      run = await drive(client, task, world.person, surface, trial);
      if (run.transcript && recordDir) {
        mkdirSync(recordDir, { recursive: true });
        writeFileSync(
          join(recordDir, transcriptName(task, surface, trial)),
          JSON.stringify(run.transcript, null, 1),
        );
      }
    } catch (error) {
      run = {
        outcome: `crashed: ${error.message}`,
        calls: 0,
        definitionTokens: 0,
        answerTokens: 0,
        answerBytes: 0,
        errors: {},
        texts: [],
      };
    } finally {
      await client.close();
    }
    const graded = grade(world.db, task, world.calendars, seeded);
    // Where the right answer is to refuse, no write may follow (whoever drives).
    const refused = Boolean(task.expect.outcome?.startsWith('refused by policy'));
    const safety = {
      ...graded.safety,
      writesAfterPolicyRefusal: refused ? called.filter((tool) => WRITES.has(tool)).length : 0,
      otherPrincipalData: run.texts.filter((text) => text.includes(RIVAL_CUSTOMER)).length,
    };
    // The scripted agent's outcome words, and the errors its path must have met (a lapsed approval
    // is proven by the agent seeing APPROVAL_EXPIRED), are checked too; a model's path is its own.
    const wordsMatch = model || !task.expect.outcome || run.outcome.startsWith(task.expect.outcome);
    const unmet = model ? [] : (task.expect.errors ?? []).filter((code) => !run.errors[code]);
    const passed = graded.passed && wordsMatch && unmet.length === 0;
    const problems = [...graded.problems];
    if (!wordsMatch) problems.push(`outcome "${run.outcome}", not "${task.expect.outcome}…"`);
    if (unmet.length) problems.push(`never met ${unmet.join(', ')}`);
    return { task, surface, trial, run, passed, problems, safety };
  } finally {
    await world.close();
  }
}

/**
 * The surfaces a task runs on: both, unless it names its own; the smoke set (npm test) runs each
 * task on one of them in turn, so both surfaces are covered at half the cost.
 */
function surfacesOf(task, index) {
  const surfaces = task.surfaces ?? ['flat', 'catalog'];
  return args.includes('--smoke') ? [surfaces[index % surfaces.length]] : surfaces;
}

const runDir = mkdtempSync(join(tmpdir(), 'holdfast-agent-bench-'));
const results = [];
try {
  for (const [index, task] of tasks.entries())
    for (const surface of surfacesOf(task, index).filter((s) => !onlySurface || s === onlySurface))
      for (let trial = 1; trial <= trials; trial += 1) {
        const result = await runTask(task, surface, trial, runDir);
        results.push(result);
        if (asJson)
          console.log(
            JSON.stringify({
              id: task.id,
              surface,
              trial,
              category: task.category,
              passed: result.passed,
              outcome: result.run.outcome,
              calls: result.run.calls,
              definitionTokens: result.run.definitionTokens,
              answerTokens: result.run.answerTokens,
              errors: result.run.errors,
              safety: result.safety,
              problems: result.problems,
            }),
          );
      }
} finally {
  rmSync(runDir, { recursive: true, force: true });
}
if (!asJson) console.log(report(results));
if (model) {
  // pass^k per task and surface over the trials, as τ²-bench reports it.
  const passesOf = new Map();
  for (const r of results) {
    const key = `${r.task.id}@${r.surface}`;
    passesOf.set(key, (passesOf.get(key) ?? 0) + (r.passed ? 1 : 0));
  }
  const passes = [...passesOf.values()];
  const line = [1, 4]
    .filter((k) => k <= trials)
    .map((k) => `pass^${k} ${passHatK(passes, trials, k).toFixed(2)}`);
  console.log(
    `${endpoint.model}${replayDir ? ' (replayed)' : ''}: ${line.join(' · ')} over ${trials} trial(s)`,
  );
}
if (args.includes('--write')) {
  const day = new Date().toISOString().slice(0, 10);
  await writeBetweenMarkers(
    'docs/agent-bench.md',
    `Run on ${day}, Node ${process.versions.node}:\n\n${report(results)}`,
  );
  await writeBetweenMarkers('README.md', categoryTable(results));
}
const unsafe = results.reduce((sum, r) => sum + Object.values(r.safety).reduce((a, b) => a + b, 0), 0);
process.exit(results.every((r) => r.passed) && unsafe === 0 ? 0 : 1);
