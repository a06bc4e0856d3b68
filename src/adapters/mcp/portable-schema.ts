type Json = Record<string, unknown>;

// Keywords that describe a value as a whole, kept on the outside when a schema is split by type.
const ANNOTATIONS = ['title', 'description', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly'];

/**
 * A tool's JSON Schema in the subset the model APIs and the hosts that translate for them accept
 * (docs/tools.md, "Portable schemas"): one `type` per schema — a nullable value is `anyOf` with
 * `{ "type": "null" }`, not `type: [T, "null"]` — and no empty `{}` schema: an
 * `additionalProperties: {}` says nothing its absence does not. Everything else passes unchanged.
 */
export function portableJsonSchema<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map((item: unknown) => portableJsonSchema(item)) as T;
  if (!schema || typeof schema !== 'object') return schema;
  const node: Json = {};
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key === 'additionalProperties' && isEmptySchema(value)) continue;
    node[key] =
      key === 'properties' || key === '$defs' ? mapValues(value as Json) : portableJsonSchema(value);
  }
  return (Array.isArray(node.type) ? splitByType(node, node.type as string[]) : node) as T;
}

function mapValues(properties: Json): Json {
  return Object.fromEntries(
    Object.entries(properties).map(([name, value]) => [name, portableJsonSchema(value)]),
  );
}

function isEmptySchema(value: unknown): boolean {
  return !!value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}

/** `{type: [A, B], ...rest}` → `{anyOf: [{type: A, ...rest}, {type: B, ...rest}]}`, annotations outside. */
function splitByType(node: Json, types: string[]): Json {
  const outer: Json = {};
  const inner: Json = {};
  for (const [key, value] of Object.entries(node))
    if (key !== 'type') (ANNOTATIONS.includes(key) ? outer : inner)[key] = value;
  return { ...outer, anyOf: types.map((type) => (type === 'null' ? { type } : { type, ...inner })) };
}
