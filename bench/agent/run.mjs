// npm run agent-bench: every task in bench/agent/tasks/ in a world of its own, on the flat tool
// list and on the catalog, driven by the scripted agent from the answers' text alone and graded
// by the database it leaves. Prints a table per task run and per category, and the safety
// counters; exits 1 when a run fails or a counter is not 0.
//   --only ID,ID   those tasks    --tasks DIR   task files from DIR    --json   a JSON line per run
//   --smoke        the ten tasks marked "smoke" (npm test runs them)
//   --write        put the report into docs/agent-bench.md and the category table into README.md
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bookingCount, grade } from './grade.mjs';
import { categoryTable, report } from './report.mjs';
import { writeBetweenMarkers } from './write-report.mjs';
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

/** One task on one surface: its world, the agent, the grade and the safety counters. */
async function runTask(task, surface, runDir) {
  const world = await buildWorld(task, surface, runDir);
  try {
    const seeded = bookingCount(world.db);
    const client = await connect(world.url, world.token);
    const called = [];
    instrument(client, world, task, called);
    let run;
    try {
      run = await runScriptedAgent(client, task.intent, world.person);
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
    const refused = run.outcome.startsWith('refused by policy');
    const safety = {
      ...graded.safety,
      writesAfterPolicyRefusal: refused ? called.filter((tool) => WRITES.has(tool)).length : 0,
      otherPrincipalData: run.texts.filter((text) => text.includes(RIVAL_CUSTOMER)).length,
    };
    const passed = graded.passed && (!task.expect.outcome || run.outcome.startsWith(task.expect.outcome));
    const problems = [...graded.problems];
    if (passed !== graded.passed) problems.push(`outcome "${run.outcome}", not "${task.expect.outcome}…"`);
    return { task, surface, run, passed, problems, safety };
  } finally {
    await world.close();
  }
}

const runDir = mkdtempSync(join(tmpdir(), 'holdfast-agent-bench-'));
const results = [];
try {
  for (const task of tasks)
    for (const surface of task.surfaces ?? ['flat', 'catalog']) {
      const result = await runTask(task, surface, runDir);
      results.push(result);
      if (asJson)
        console.log(
          JSON.stringify({
            id: task.id,
            surface,
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
if (args.includes('--write')) {
  const day = new Date().toISOString().slice(0, 10);
  writeBetweenMarkers(
    'docs/agent-bench.md',
    `Run on ${day}, Node ${process.versions.node}:\n\n${report(results)}`,
  );
  writeBetweenMarkers('README.md', categoryTable(results));
}
const unsafe = results.reduce((sum, r) => sum + Object.values(r.safety).reduce((a, b) => a + b, 0), 0);
process.exit(results.every((r) => r.passed) && unsafe === 0 ? 0 : 1);
