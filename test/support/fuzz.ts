import fc from 'fast-check';

/** A JSON Schema as the server publishes it in tools/list (the subset zod emits). */
export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  maxProperties?: number;
}

/** Stands for an id taken, at send time, from what the server handed out so far. */
export class PoolRef {
  constructor(
    readonly pool: 'calendar' | 'booking' | 'approval',
    readonly pick: number,
  ) {}
}

const HOUR = 3_600_000;

/** Instants near now (mostly future, whole quarter hours), plus edges of the calendar. */
function instant(): fc.Arbitrary<string> {
  const near = fc
    .integer({ min: -2 * 24, max: 40 * 24 * 4 })
    .map((quarter) => new Date(Math.ceil(Date.now() / HOUR) * HOUR + quarter * 15 * 60_000).toISOString());
  const edges = fc.constantFrom(
    '0001-01-01T00:00:00Z',
    '1970-01-01T00:00:00Z',
    '9999-12-31T23:59:59Z',
    '2026-02-29T10:00:00Z',
    '2030-03-31T02:30:00+02:00',
    '2030-01-07T09:00:00.123456789+14:00',
  );
  return fc.oneof({ weight: 8, arbitrary: near }, { weight: 1, arbitrary: edges });
}

function idFor(name: string): fc.Arbitrary<unknown> | null {
  const pool = /calendarIds?$/.test(name)
    ? 'calendar'
    : /bookingId$/.test(name)
      ? 'booking'
      : /approvalId$/.test(name)
        ? 'approval'
        : null;
  if (!pool) return null;
  return fc.oneof(
    { weight: 6, arbitrary: fc.nat().map((n) => new PoolRef(pool, n)) },
    { weight: 1, arbitrary: pool === 'approval' ? fc.uuid() : fc.string({ minLength: 1, maxLength: 30 }) },
  );
}

function text(schema: JsonSchema, name: string): fc.Arbitrary<unknown> {
  const id = idFor(name);
  if (id) return id;
  if (schema.format === 'uuid') return fc.uuid();
  if (schema.format === 'date-time') return instant();
  if (schema.format === 'email')
    return fc.oneof(fc.constantFrom('ada@example.com', 'li.wei@example.cn'), fc.emailAddress());
  if (name === 'cursor')
    return fc.option(fc.string({ maxLength: 40 }), { freq: 5 }).map((c) => c ?? undefined);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (name === 'timeZone') return fc.constantFrom('UTC', 'Europe/Berlin', 'Asia/Kolkata', 'Mars/Olympus', '');
  if (name === 'start' || name === 'end')
    return fc.constantFrom('00:00', '08:00', '12:30', '24:00', '7:00', '25:00');
  if (name === 'date') return fc.constantFrom('2030-01-07', '2030-02-30', '7.1.2030');
  if (name === 'amount') return fc.constantFrom('500.00', '0', '1e3', '-1', '0.00001');
  if (name === 'currency') return fc.constantFrom('CNY', 'EUR', 'eur', 'XX');
  if (name === 'phone') return fc.constantFrom('+49 30 1234567', '(555) 010-0199', 'call me');
  if (name === 'locale') return fc.constantFrom('de-AT', 'zh-Hans-CN', 'en', '??');
  return fc.string({
    minLength: schema.minLength ?? 0,
    maxLength: Math.min(schema.maxLength ?? 40, 40),
  });
}

/** Arbitrary values that mostly satisfy `schema`, with real ids mixed in. */
export function fromSchema(schema: JsonSchema, name = ''): fc.Arbitrary<unknown> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => fromSchema(s, name)));
  switch (schema.type) {
    case 'string':
      return text(schema, name);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -10, max: Math.min(schema.maximum ?? 1000, 2000) });
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(fromSchema(schema.items ?? {}, name), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 5, 5),
      });
    case 'object': {
      const properties = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      const keys = Object.keys(properties);
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const key of keys) record[key] = fromSchema(properties[key]!, key);
      if (keys.length === 0 && typeof schema.additionalProperties === 'object') {
        return fc.dictionary(
          fc.string({ minLength: 1, maxLength: 12 }),
          fromSchema(schema.additionalProperties, name),
          { maxKeys: Math.min(schema.maxProperties ?? 4, 4) },
        );
      }
      return fc
        .record(record, { requiredKeys: keys.filter((k) => required.has(k)) })
        .chain((value) => coherentRange(value, 'start', 'end').chain((v) => coherentRange(v, 'from', 'to')));
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Mostly puts `end` after `start` by a plausible length, as a model that read the schema would. */
function coherentRange(
  value: Record<string, unknown>,
  startKey: string,
  endKey: string,
): fc.Arbitrary<Record<string, unknown>> {
  const start = value[startKey];
  if (typeof start !== 'string' || typeof value[endKey] !== 'string' || !/^\d{4}-/.test(start))
    return fc.constant(value);
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.integer({ min: 1, max: 16 }).map((quarters) => {
        const end = Date.parse(start) + quarters * 15 * 60_000;
        return Number.isFinite(end) ? { ...value, [endKey]: new Date(end).toISOString() } : value;
      }),
    },
    { weight: 1, arbitrary: fc.constant(value) },
  );
}

/** Strings a hostile model would try: broken UTF-16, NUL, controls, bidi overrides, size. */
export const hostileStrings = fc.constantFrom(
  'bk_\udfff',
  '\ud800',
  'x\u0000y',
  'Robert\u0000; DROP TABLE bookings;--',
  'abc\u202Egpj.exe',
  '\u2066isolate\u2069',
  'line\u2028separator',
  'bell\u0007',
  '\ufeffbom',
  'x'.repeat(20_000),
  '👩‍⚕️'.repeat(2_000),
  '../../etc/passwd',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '%00%0d%0a',
);

type Mutation = (value: Record<string, unknown>, pick: number) => Record<string, unknown>;

function nestedValue(depth: number): unknown {
  let value: unknown = 'deep';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

function stringPaths(value: unknown, path: (string | number)[] = [], out: (string | number)[][] = []) {
  if (typeof value === 'string') out.push(path);
  else if (Array.isArray(value)) value.forEach((v, i) => stringPaths(v, [...path, i], out));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) stringPaths(v, [...path, k], out);
  return out;
}

function setAt(root: Record<string, unknown>, path: (string | number)[], replacement: unknown) {
  const copy = structuredClone(root);
  let node = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = replacement;
  return copy;
}

/** Hostile rewrites of well-formed arguments. */
export const mutations = fc.oneof(
  hostileStrings.map<Mutation>((hostile) => (value, pick) => {
    const paths = stringPaths(value);
    return paths.length === 0
      ? { ...value, label: hostile }
      : setAt(value, paths[pick % paths.length]!, hostile);
  }),
  fc
    .integer({ min: 9, max: 3000 })
    .map<Mutation>((depth) => (value) => ({ ...value, customer: nestedValue(depth) })),
  fc.integer({ min: 65, max: 4000 }).map<Mutation>((n) => (value) => ({
    ...value,
    ...Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])),
  })),
  fc.constant<Mutation>((value) => ({
    ...value,
    customer: JSON.parse('{"__proto__":{"isAdmin":true},"name":"x"}') as unknown,
  })),
  fc.constant<Mutation>((value) => {
    const rest = JSON.stringify(value).slice(1);
    return JSON.parse(`{"__proto__":{"polluted":1}${rest === '}' ? '' : ','}${rest}`) as Record<
      string,
      unknown
    >;
  }),
  fc
    .constantFrom('5', '1e3', 1.5, -1, 2 ** 60, 1e308, null, [], {}, true)
    .map<Mutation>((bad) => (value, pick) => {
      const keys = Object.keys(value);
      return keys.length === 0 ? { limit: bad } : { ...value, [keys[pick % keys.length]!]: bad };
    }),
  fc
    .constantFrom(
      '2030-01-07T09:00:00',
      '+275760-09-13T00:00:00Z',
      '2026-12-01T25:00:00Z',
      '2026-02-30T10:00:00Z',
      '0000-00-00T00:00:00Z',
      '2030-01-07 09:00:00Z',
    )
    .map<Mutation>((bad) => (value) => ({ ...value, start: bad, from: bad })),
  fc.constant<Mutation>((value) => {
    const keys = Object.keys(value);
    const copy = { ...value };
    delete copy[keys[0] ?? 'x'];
    return copy;
  }),
  fc.constant<Mutation>((value) => ({ ...value, unexpectedField: 'x' })),
);

export interface FuzzCall {
  readonly tool: string;
  /** Well-formed arguments, with PoolRefs for ids. */
  readonly args: Record<string, unknown>;
  /** A hostile rewrite to apply once the ids are resolved, if any. */
  readonly mutate: Mutation | null;
  readonly pick: number;
}

/** One call: a tool, arguments drawn from its published schema, and (often) a hostile rewrite. */
export function fuzzCalls(tools: { name: string; inputSchema: JsonSchema }[]): fc.Arbitrary<FuzzCall> {
  return fc.oneof(
    ...tools.map((tool) =>
      fc
        .tuple(
          fromSchema(tool.inputSchema) as fc.Arbitrary<Record<string, unknown>>,
          fc.option(mutations, { freq: 2 }),
          fc.nat(),
        )
        .map(([args, mutate, pick]) => ({ tool: tool.name, args, mutate, pick })),
    ),
  );
}

/** The arguments to send: ids resolved from what the server handed out, then the hostile rewrite. */
export function argumentsOf(
  call: FuzzCall,
  pools: Record<PoolRef['pool'], string[]>,
): Record<string, unknown> {
  const args = resolvePools(call.args, pools) as Record<string, unknown>;
  return call.mutate ? call.mutate(args, call.pick) : args;
}

/** Replaces PoolRefs (never deeper than a schema goes) with ids the server handed out. */
function resolvePools(value: unknown, pools: Record<PoolRef['pool'], string[]>): unknown {
  if (value instanceof PoolRef) {
    const list = pools[value.pool];
    return list.length === 0 ? `${value.pool}_none` : list[value.pick % list.length];
  }
  if (Array.isArray(value)) return value.map((v) => resolvePools(v, pools));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolvePools(v, pools)]));
  return value;
}
