import { posix } from 'node:path';

/**
 * The architecture as rules over one source file: its path under src/ and its text. Imports flow
 * domain <- ports <- app <- adapters <- main; the core (domain, ports, app) does no I/O and reads
 * no clock, environment, randomness or timer; an adapter uses another adapter only through the
 * modules that adapter offers, and the composition root (main) only through an adapter's
 * index.ts, its door (where heavy parts load on demand). `client` is the small library agents' code imports
 * (holdfast/client-timing): it stands apart and imports nothing of the server. `demo` is the
 * scripted agent session of `npm run demo`: it drives the built CLI and the official SDK client
 * from outside, as a user would, with the client library a user's code imports (`client`), and
 * nothing of the server either.
 */

export interface Violation {
  readonly rule: string;
  readonly detail: string;
}

const LAYERS = ['domain', 'ports', 'app', 'adapters', 'main', 'client', 'demo'] as const;
type Layer = (typeof LAYERS)[number];

const allowedLayers: Record<Layer, readonly Layer[]> = {
  domain: ['domain'],
  ports: ['domain', 'ports'],
  app: ['domain', 'ports', 'app'],
  adapters: ['domain', 'ports', 'app', 'adapters'],
  main: ['domain', 'ports', 'app', 'adapters', 'main'],
  client: ['client'],
  demo: ['demo', 'client'],
};

/** Packages the core may import; adapters and main may import any. */
const allowedPackages: Partial<Record<Layer, RegExp>> = {
  domain: /^temporal-polyfill$/,
  ports: /^$/,
  app: /^$/,
};

/** What the core must receive as a parameter instead of reaching for it. */
const forbiddenInCore: readonly [RegExp, string][] = [
  [/\bDate\.now\(/, 'Date.now()'],
  [/\bnew Date\(/, 'new Date()'],
  [/\bTemporal\.Now\b/, 'Temporal.Now'],
  [/\bprocess\./, 'process'],
  [/\bMath\.random\(/, 'Math.random()'],
  [/\bcrypto\./, 'crypto'],
  [/\bperformance\./, 'performance'],
  [/\brequire\(/, 'require()'],
  [/\b(setTimeout|setInterval|setImmediate|queueMicrotask)\(/, 'timers'],
  [/\bfetch\(/, 'fetch()'],
  [/\bglobalThis\b/, 'globalThis'],
];

/**
 * Modules an adapter offers to other adapters. Everything else is internal to its adapter: an
 * engine does not reach into another engine, the MCP adapter not into storage, and so on.
 */
const publicAdapterModules: readonly RegExp[] = [
  /^adapters\/log\/(json-logger|logger)\.ts$/,
  /^adapters\/audit\/(call-audit|preview)\.ts$/,
  /^adapters\/ids\/random-ids\.ts$/,
  // Where the package's own files are, whichever copy of the code runs (src/, dist/, the bundle).
  /^adapters\/files\/package-files\.ts$/,
  // The one guard of every request made on someone's behalf (feeds, webhooks, OAuth metadata).
  /^adapters\/net\/outbound-guard\.ts$/,
  // Someone's calendar, read or written (feeds, CalDAV): the same limits, one iCalendar reader, one UID per booking.
  /^adapters\/feeds\/(guarded-fetch|ics-import|feed-uid)\.ts$/,
  // How instants read for people: the CLI's tables and the console's pages.
  /^adapters\/format\/human-time\.ts$/,
  // The JSON-RPC id of a message too large to parse: stdio's line limit and HTTP's body limit alike.
  /^adapters\/mcp\/request-id\.ts$/,
  // The authorization server's face to Holdfast's own sign-in and consent pages.
  /^adapters\/oauth\/endpoints\.ts$/,
  // How signing keys are sealed at rest: the OAuth server's and the receipts' alike.
  /^adapters\/oauth\/signing-keys\.ts$/,
  // Mail in, parsed and sanitized: for the ingestion endpoint and the views that show it.
  /^adapters\/inbox\/index\.ts$/,
  // Traces, metrics and the timing contract's header names: every adapter that handles a call reports.
  /^adapters\/telemetry\/(tracing|trace-export|metrics|call-metrics|timing-headers)\.ts$/,
  // What every storage engine shares: rows, migrations' shape, and the SQL of each aggregate.
  /^adapters\/storage\/[^/]+\.ts$/,
  // One LISTEN connection that outlives a database restart, and what counts as the database
  // being away: the caches, buses and limits every PostgreSQL instance shares.
  /^adapters\/storage\/postgres\/pg-(listener|connection-loss)\.ts$/,
  /^adapters\/storage\/sql\/[^/]+\.ts$/,
];

/** `adapters/storage/sqlite/x.ts` -> storage/sqlite; `adapters/mcp/tools/x.ts` -> mcp. */
function adapterOf(path: string): string {
  const [, first, second] = path.split('/');
  return first === 'storage' && second !== undefined && !second.endsWith('.ts')
    ? `storage/${second}`
    : first!;
}

/** An adapter folder's face (`adapters/storage/index.ts`) opens what lies below it (each engine). */
function isFaceOver(path: string, target: string): boolean {
  return path.endsWith('/index.ts') && target.startsWith(posix.dirname(path) + '/');
}

/** Every module specifier the file imports: from-imports, side-effect imports, re-exports, dynamic imports. */
export function importsOf(source: string): string[] {
  const pattern =
    /\bimport\s+(?:type\s+)?[^'"()]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*['"]([^'"]+)['"]|\bexport\s+[^'";]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
  return [...source.matchAll(pattern)].map((m) => m[1] ?? m[2] ?? m[3] ?? m[4]!);
}

const layerOf = (path: string) => path.split('/')[0] as Layer;

/**
 * Every request an adapter makes on someone's behalf goes through the outbound guard: only the
 * guard itself (and the feed reader, which checks every redirect hop with it) calls fetch().
 */
const GLOBAL_FETCH = /(^|[^.\w$])fetch\(/m;
const fetchesThroughTheGuard = [
  /^adapters\/net\/outbound-guard\.ts$/,
  /^adapters\/feeds\/guarded-fetch\.ts$/,
];

/** The source without comments, so a rule is not tripped by prose that mentions Date.now(). */
function code(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** What is wrong with one file; `path` is relative to src/, with forward slashes. */
export function violationsOf(path: string, source: string): Violation[] {
  const found: Violation[] = [];
  const layer = layerOf(path);
  if (!LAYERS.includes(layer)) return [{ rule: 'unknown layer', detail: path }];
  const text = code(source);
  for (const specifier of importsOf(text)) {
    if (!specifier.startsWith('.')) {
      const packages = allowedPackages[layer];
      if (packages && !packages.test(specifier))
        found.push({ rule: 'package in the core', detail: `${layer} imports ${specifier}` });
      continue;
    }
    const target = posix.normalize(posix.join(posix.dirname(path), specifier)).replace(/\.js$/, '.ts');
    const targetLayer = layerOf(target);
    if (!allowedLayers[layer].includes(targetLayer)) {
      found.push({ rule: 'layer direction', detail: `${layer} imports ${target}` });
      continue;
    }
    // A second door: the MCP server an embedding application connects itself (holdfast/deltat),
    // loaded by that entry alone so the first door stays light for the command line.
    if (
      layer === 'main' &&
      targetLayer === 'adapters' &&
      !/^adapters\/[^/]+\/index\.ts$/.test(target) &&
      target !== 'adapters/mcp/embedded.ts'
    ) {
      found.push({ rule: 'main past an adapter door', detail: `${path} imports ${target}` });
      continue;
    }
    if (
      layer === 'adapters' &&
      targetLayer === 'adapters' &&
      adapterOf(path) !== adapterOf(target) &&
      !publicAdapterModules.some((p) => p.test(target)) &&
      !isFaceOver(path, target)
    ) {
      found.push({ rule: 'adapter internals', detail: `${adapterOf(path)} reaches into ${target}` });
    }
  }
  if (/^adapters\/storage\/sql\//.test(path) && /\bengine\s*[!=]==?/.test(text))
    found.push({
      rule: 'engine test in shared SQL',
      detail: `${path} asks which engine instead of the dialect`,
    });
  if (layer === 'adapters' && GLOBAL_FETCH.test(text) && !fetchesThroughTheGuard.some((p) => p.test(path)))
    found.push({ rule: 'fetch outside the guard', detail: `${path} calls fetch() itself` });
  if (layer === 'domain' || layer === 'ports' || layer === 'app') {
    for (const [pattern, name] of forbiddenInCore)
      if (pattern.test(text)) found.push({ rule: 'I/O in the core', detail: `${name} in ${path}` });
  }
  return found;
}

/**
 * The import cycles among the files (relative to src/, with forward slashes; `sources` gives
 * each file's text): every strongly connected group of two or more files, or a file importing
 * itself. Type-only and dynamic imports count: a cycle of types is still two modules that
 * cannot be understood apart.
 */
export function cyclesOf(sources: ReadonlyMap<string, string>): string[][] {
  const edges = new Map<string, string[]>();
  for (const [path, source] of sources) {
    const targets = importsOf(code(source))
      .filter((s) => s.startsWith('.'))
      .map((s) => posix.normalize(posix.join(posix.dirname(path), s)).replace(/\.js$/, ''))
      .flatMap((base) => [`${base}.ts`, `${base}.tsx`].filter((file) => sources.has(file)));
    edges.set(path, targets);
  }
  // Tarjan's strongly connected components.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string): void => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of edges.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1 || (edges.get(file) ?? []).includes(file)) cycles.push(group.sort());
  };
  for (const file of [...sources.keys()].sort()) if (!index.has(file)) visit(file);
  return cycles;
}
