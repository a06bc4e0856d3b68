// Reads a V8 .cpuprofile and sums self time by area of the code, so `npm run bench -- --profile`
// can say where a hold run spends the server's time. Areas are decided by the script URL.
import { readFileSync } from 'node:fs';

const AREAS = [
  ['GC', (f) => f.functionName === '(garbage collector)'],
  ['idle', (f) => f.functionName === '(idle)'],
  ['V8 / native (program)', (f) => f.functionName === '(program)'],
  [
    'SQLite (better-sqlite3)',
    (f) =>
      /better-sqlite3/.test(f.url) || (/^(exec|run|all|get|prepare)$/.test(f.functionName) && f.url === ''),
  ],
  ['PostgreSQL driver (pg)', (f) => /node_modules\/(pg|pg-protocol|pg-pool|pg-types)\//.test(f.url)],
  ['zod', (f) => /node_modules\/zod\//.test(f.url)],
  ['MCP SDK', (f) => /@modelcontextprotocol\//.test(f.url)],
  ['Hono + node-server', (f) => /node_modules\/(hono|@hono)\//.test(f.url)],
  [
    'web Request/Response, streams (undici)',
    (f) => /internal\/deps\/undici|internal\/webstreams|internal\/streams/.test(f.url),
  ],
  [
    'node http + net',
    (f) => /node:_http|node:http|node:net|internal\/http|node:internal\/stream_base/.test(f.url),
  ],
  ['Temporal polyfill', (f) => /temporal-polyfill/.test(f.url)],
  ['JSON canonicalisation', (f) => /canonicalize/.test(f.url)],
  ['Holdfast domain', (f) => /\/dist\/domain\//.test(f.url)],
  ['Holdfast app', (f) => /\/dist\/app\//.test(f.url)],
  ['Holdfast storage adapters', (f) => /\/dist\/adapters\/storage\//.test(f.url)],
  ['Holdfast MCP adapter', (f) => /\/dist\/adapters\/mcp\//.test(f.url)],
  ['Holdfast audit', (f) => /\/dist\/adapters\/audit\//.test(f.url)],
  ['Holdfast other', (f) => /\/dist\//.test(f.url)],
  ['other node_modules', (f) => /node_modules/.test(f.url)],
  ['Node internals', (f) => /^node:/.test(f.url)],
];

/** Self time per area, in percent of the profile, largest first. */
export function summarizeProfile(path, top = 12) {
  const profile = JSON.parse(readFileSync(path, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const deltas = profile.timeDeltas ?? [];
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const area =
      AREAS.find(([, test]) => test(node.callFrame))?.[0] ??
      `native: ${node.callFrame.functionName || '(anonymous)'}`;
    self.set(area, (self.get(area) ?? 0) + (deltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([area, us]) => ({ area, percent: Math.round((1000 * us) / total) / 10 }));
}

/** The heaviest functions by self time, for finding what to change inside an area. */
export function topFunctions(path, top = 25) {
  const profile = JSON.parse(readFileSync(path, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const deltas = profile.timeDeltas ?? [];
  profile.samples.forEach((id, i) => {
    const f = byId.get(id).callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + (deltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, us]) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${fn}`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const path of process.argv.slice(2)) {
    console.log(path);
    for (const { area, percent } of summarizeProfile(path, 20))
      console.log(`${String(percent).padStart(5)}%  ${area}`);
    console.log('');
    for (const line of topFunctions(path, 40)) console.log(line);
  }
}

/** Inclusive time of functions (self plus callees), for finding which call path is heavy. */
export function inclusiveFunctions(path, top = 40, filter = () => true) {
  const profile = JSON.parse(readFileSync(path, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  const deltas = profile.timeDeltas ?? [];
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i] ?? 0)));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const inclusive = new Map();
  const keyOf = (f) =>
    `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${f.lineNumber + 1}`;
  const walk = (node, onStack) => {
    let sum = selfUs.get(node.id) ?? 0;
    const key = keyOf(node.callFrame);
    const fresh = !onStack.has(key);
    if (fresh) onStack.add(key);
    for (const child of node.children ?? []) sum += walk(byId.get(child), onStack);
    if (fresh) {
      onStack.delete(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + sum);
    }
    return sum;
  };
  walk(profile.nodes[0], new Set());
  return [...inclusive.entries()]
    .filter(([key]) => filter(key))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([fn, us]) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${fn}`);
}
