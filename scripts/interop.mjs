// `npm run interop`: foreign MCP clients, each pinned, through one scenario against a freshly
// spawned Holdfast — over HTTP with a token, over stdio, and (the v1 SDK, mcp-remote) through
// the OAuth flow with headless Chromium as the person. Prints the matrix (client × operation),
// writes it into docs/interop.md between its markers, and exits 1 if any cell failed.
// The heavy clients live in tools/interop/ (their own package and lock), installed here on demand.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import * as prettier from 'prettier';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { OPERATIONS, futureHour } from './interop/scenario.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(root, 'dist/bin/holdfast.js');
const NODE22 = join(root, 'tools/runtimes/node_modules/node22/bin/node');
const INTEROP = join(root, 'tools/interop');
const EMAIL = 'interop@example.com';
const PASSWORD = 'an interop password, long enough';
const started = Date.now();
const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
const log = (line) => process.stderr.write(`interop: ${line}\n`);

function version(name, from = root) {
  return JSON.parse(readFileSync(join(from, 'node_modules', name, 'package.json'), 'utf8')).version;
}

function ensureInstalled() {
  if (existsSync(join(INTEROP, 'node_modules/.package-lock.json'))) return;
  log('installing the foreign clients: npm ci --prefix tools/interop');
  execFileSync('npm', ['ci', '--prefix', INTEROP, '--no-audit', '--no-fund', '--loglevel=error'], {
    stdio: 'inherit',
  });
}

const cli = (args) => execFileSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });

async function startServer(dbPath) {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--db', dbPath, '--no-seed'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let logs = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${logs}`)), 20_000);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      logs += chunk;
      const match = /"url":"(http:\/\/[^"]+)"/.exec(logs);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${logs}`)));
  });
  return { url, child };
}

/** The person chooses a password through the setup link `users add` printed (for the OAuth rows). */
async function setPassword(origin, setupUrl) {
  const link = new URL(new URL(setupUrl).pathname, origin);
  const answer = await fetch(link, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({ password: PASSWORD }),
  });
  if (!answer.ok) throw new Error(`setting the password failed: HTTP ${answer.status}`);
}

/** A calendar open all week in UTC, made with the v1 SDK and the token. */
async function createCalendar(mcpUrl, token) {
  const client = new Client({ name: 'holdfast-interop-setup', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  const allDay = [{ start: '00:00', end: '24:00' }];
  const days = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
  const result = await client.callTool({
    name: 'create_calendar',
    arguments: {
      name: 'Interop room',
      timeZone: 'UTC',
      availability: { weekly: Object.fromEntries(days.map((d) => [d, allDay])), overrides: [] },
      idempotencyKey: crypto.randomUUID(),
    },
  });
  await client.close();
  if (!result.structuredContent?.ok)
    throw new Error(`create_calendar: ${JSON.stringify(result.structuredContent)}`);
  return result.structuredContent.data.calendar.id;
}

/** Runs one driver in its own process; its cells come back as the last line of its stdout. */
function runDriver(node, driver, job, timeoutMs, env) {
  return new Promise((resolve) => {
    const child = spawn(node, [join(root, 'scripts/interop', driver), JSON.stringify(job)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const line = stdout.split('\n').find((l) => l.startsWith('INTEROP_RESULT '));
      if (line) return resolve(JSON.parse(line.slice('INTEROP_RESULT '.length)));
      const why = signal ? `killed after ${timeoutMs / 1000} s` : `exited ${code}`;
      const lines = stderr.trim().split('\n');
      const tail = (lines.find((l) => /Error/.test(l)) ?? lines.at(-1) ?? '').slice(0, 200);
      resolve({ connect: { status: 'fail', note: `driver ${why}: ${tail}` } });
    });
  });
}

/** The Inspector's schema portability lint: tools/list with --strict, its findings counted. */
function inspectorStrict(mcpUrl, token) {
  const bin = join(INTEROP, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
  return new Promise((resolve) => {
    const child = spawn(
      NODE22,
      [
        bin,
        '--cli',
        mcpUrl,
        '--transport',
        'http',
        '--header',
        `Authorization: Bearer ${token}`,
        '--method',
        'tools/list',
        '--strict',
        '--format',
        'json',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HOME: process.env.INTEROP_HOME } },
    );
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.once('exit', (code) => {
      // It prints findings (and their count) on stderr, nothing when there are none: the list it
      // checked is on stdout, so a run that checked nothing is not mistaken for a clean one.
      let tools = 0;
      try {
        tools = JSON.parse(stdout).result?.tools?.length ?? 0;
      } catch {
        // not JSON: nothing was listed, so nothing was checked
      }
      resolve({ code, stderr, tools });
    });
  });
}

const mark = (cell) =>
  !cell
    ? '✗ not run'
    : cell.status === 'pass'
      ? `✓${cell.note.includes('text only') ? ' (text only)' : ''}`
      : cell.status === 'n/a'
        ? '—'
        : `✗ ${cell.note.replace(/\|/g, '\\|')}`;

function matrix(rows) {
  const head = `| client | transport | ${OPERATIONS.join(' | ')} |`;
  const rule = `|${' --- |'.repeat(OPERATIONS.length + 2)}`;
  const lines = rows.map(
    (r) => `| ${r.client} | ${r.transport} | ${OPERATIONS.map((op) => mark(r.cells[op])).join(' | ')} |`,
  );
  return [head, rule, ...lines].join('\n');
}

/** Puts the matrix between the page's markers, formatted as `npm run check` wants it. */
async function writeDoc(table, footer) {
  const file = join(root, 'docs/interop.md');
  const begin = '<!-- interop:begin -->';
  const end = '<!-- interop:end -->';
  const block = `${begin}\n${table}\n\n${footer}\n${end}`;
  const text = existsSync(file) ? readFileSync(file, 'utf8') : `# Interop\n\n${begin}\n${end}\n`;
  const at = text.indexOf(begin);
  const to = text.indexOf(end);
  const next =
    at >= 0 && to > at ? text.slice(0, at) + block + text.slice(to + end.length) : `${text}\n${block}\n`;
  const options = { ...(await prettier.resolveConfig(file)), filepath: file };
  writeFileSync(file, await prettier.format(next, options));
}

ensureInstalled();
const dir = mkdtempSync(join(tmpdir(), 'holdfast-interop-'));
process.env.INTEROP_HOME = dir;
const dbPath = join(dir, 'holdfast.db');
let server;
let failed = 0;
try {
  cli(['db', 'migrate', '--db', dbPath]);
  const { setupUrl } = JSON.parse(cli(['users', 'add', EMAIL, '--role', 'owner', '--json', '--db', dbPath]));
  // Room for every row's hold and approval (the defaults allow 10 holds per person).
  cli([
    'tenants',
    'set',
    'local',
    '--max-active-holds',
    '100',
    '--max-holds-per-connection',
    '100',
    '--max-held-hours',
    '200',
    '--max-open-approvals-per-person',
    '100',
    '--calls-per-minute',
    '6000',
    '--db',
    dbPath,
  ]);
  const { token } = JSON.parse(
    cli(['tokens', 'create', EMAIL, '--name', 'interop', '--json', '--db', dbPath]),
  );
  const setup = JSON.parse(
    cli([
      'tokens',
      'create',
      EMAIL,
      '--name',
      'interop set-up',
      '--scopes',
      'read,draft,write,sensitive',
      '--json',
      '--db',
      dbPath,
    ]),
  );
  server = await startServer(dbPath);
  const mcpUrl = new URL('/mcp', server.url).href;
  await setPassword(new URL(server.url).origin, setupUrl);
  const calendarId = await createCalendar(mcpUrl, setup.token);
  log(`server ${mcpUrl}, calendar ${calendarId} (${seconds(started)})`);

  const stdio = { command: process.execPath, args: [CLI, 'stdio', '--db', dbPath, '--as', EMAIL] };
  const person = { email: EMAIL, password: PASSWORD };
  const interopVersion = (name) => version(name, INTEROP);
  const clients = [
    {
      client: `MCP TypeScript SDK v1 ${version('@modelcontextprotocol/sdk')}`,
      driver: 'sdk-v1.mjs',
      transports: ['http', 'stdio', 'oauth'],
    },
    {
      client: `MCP Inspector CLI ${interopVersion('@modelcontextprotocol/inspector')}`,
      driver: 'inspector.mjs',
      node: NODE22,
      transports: ['http', 'stdio'],
    },
    {
      client: `Vercel AI SDK @ai-sdk/mcp ${interopVersion('@ai-sdk/mcp')}`,
      driver: 'ai-sdk.mjs',
      transports: ['http', 'stdio'],
    },
    {
      client: `LangChain @langchain/mcp-adapters ${interopVersion('@langchain/mcp-adapters')}`,
      driver: 'langchain.mjs',
      transports: ['http', 'stdio'],
    },
    { client: `mcp-use ${interopVersion('mcp-use')}`, driver: 'mcp-use.mjs', transports: ['http', 'stdio'] },
    {
      client: `mcp-remote ${version('mcp-remote')}`,
      driver: 'mcp-remote.mjs',
      transports: ['http', 'oauth'],
    },
  ];
  const only = process.env.INTEROP_ONLY?.split(',');
  const rows = [];
  let day = 2;
  for (const { client, driver, node, transports } of clients) {
    if (only && !only.some((o) => driver.startsWith(o))) continue;
    for (const transport of transports) {
      const since = Date.now();
      const job = {
        transport,
        url: mcpUrl,
        token,
        stdio,
        person,
        calendarId,
        from: futureHour(day++),
        home: dir,
      };
      const cells = await runDriver(
        node ?? process.execPath,
        driver,
        job,
        transport === 'oauth' ? 120_000 : 90_000,
        {
          HOME: dir,
          MCP_USE_ANONYMIZED_TELEMETRY: 'false',
        },
      );
      const bad =
        Object.values(cells).filter((c) => c.status === 'fail').length +
        OPERATIONS.filter((op) => !cells[op]).length;
      failed += bad;
      rows.push({
        client,
        transport: transport === 'http' ? 'HTTP + token' : transport === 'oauth' ? 'HTTP + OAuth' : 'stdio',
        cells,
      });
      log(`${client} over ${transport}: ${bad ? `${bad} failed` : 'all passed'} (${seconds(since)})`);
    }
  }
  let footer = `✓ passed · ✗ failed (with the error) · — the client offers no such operation. Run on ${new Date().toISOString().slice(0, 10)}, Node ${process.versions.node} (the Inspector on Node 22), in ${seconds(started)}.`;
  if (!only || only.includes('inspector')) {
    const strict = await inspectorStrict(mcpUrl, token);
    const summary = /(\d+) errors?, (\d+) warnings? across (\d+) tools?/.exec(strict.stderr);
    const kinds = new Map();
    for (const issue of strict.stderr.matchAll(/Issue: ([^.(]+)/g)) {
      const kind = issue[1].trim();
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    const byKind = [...kinds].map(([kind, n]) => `${n} × ${kind}`).join('; ');
    if (process.env.INTEROP_VERBOSE) log(`Inspector --strict:\n${strict.stderr.trim()}`);
    const clean = strict.code === 0 && strict.tools > 0 && strict.stderr.trim() === '';
    footer += clean
      ? `\n\nInspector \`tools/list --strict\` (schema portability): 0 errors, 0 warnings across ${strict.tools} tools.`
      : summary
        ? `\n\nInspector \`tools/list --strict\` (schema portability): ${summary[1]} errors, ${summary[2]} warnings across ${summary[3]} tools (exit ${strict.code})${byKind ? `: ${byKind}` : ''}.`
        : `\n\nInspector \`tools/list --strict\`: no summary (exit ${strict.code}, ${strict.tools} tools listed): ${strict.stderr.trim().slice(0, 200)}`;
    // Portable schemas are part of the matrix: any finding fails the run.
    if (!clean) failed += 1;
  }
  const table = matrix(rows);
  process.stdout.write(`${table}\n\n${footer}\n`);
  if (!only) await writeDoc(table, footer);
} finally {
  server?.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
log(`done in ${seconds(started)}${failed ? `: ${failed} cell(s) failed` : ''}`);
process.exit(failed ? 1 : 0);
