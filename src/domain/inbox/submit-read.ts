/**
 * Reading an agent's submit payload as JSON, for the submit adapter. The payload is first copied
 * into a JSON tree ({@link snapshot}): plain objects, arrays, strings, finite numbers, booleans and
 * null only. Everything after that reads the copy, never the caller's objects: no getter runs
 * twice, nothing the caller holds is shared with the result, and a `__proto__` key is an own
 * property like any other (copies are made with defineProperty, so no prototype is ever set).
 *
 * The contract lets the adapter stop only what the transport needs (unknown fields, missing or
 * duplicate event ids, dangling relations): sizes are the request's to bound (the body limit, 10 MB
 * by default, and the request's own nesting bound, answered MCP_REQUEST_BODY_TOO_LARGE or
 * MCP_REQUEST_INVALID before the adapter runs). The one bound here, {@link MAX_DEPTH}, keeps an
 * in-process caller's cycle or runaway nesting from overflowing the stack.
 *
 * A transport-level problem ends the reading with a {@link PayloadRejection}; the adapter turns it
 * into its result. Field paths name array items by zero-based position (`message_events[2]`) and
 * keys that are not identifiers in brackets (`["a b"]`).
 */

export const MAX_DEPTH = 256;

export type Json = string | number | boolean | null | readonly Json[] | JsonObject;
export interface JsonObject {
  readonly [key: string]: Json;
}

/** Why the payload is refused: the field path and what is wrong with it, in plain English. */
export class PayloadRejection extends Error {
  override readonly name = 'PayloadRejection';
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

export function reject(field: string, reason: string): never {
  throw new PayloadRejection(field === '' ? '$' : field, reason);
}

/** A value for a message: JSON-quoted and cut to a readable length. */
export function quote(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

export function childPath(path: string, key: string): string {
  if (key.length <= 64 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${quote(key)}]`;
}

export const itemPath = (path: string, index: number): string => `${path}[${index}]`;

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Own data property `key` of `value`; accessors are refused, a hole reads as undefined. */
function ownValue(value: object, key: string, path: string): unknown {
  const descriptor = Object.getOwnPropertyDescriptor(value, key);
  if (descriptor === undefined) return undefined;
  if (!('value' in descriptor)) reject(path, 'an accessor property is not a JSON value');
  return descriptor.value;
}

function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A JSON copy of `value`, or a rejection naming where it is not JSON or nested past MAX_DEPTH. */
export function snapshot(value: unknown, path = '', depth = 0): Json {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      if (!Number.isFinite(value)) reject(path, `${value} is not a JSON number`);
      return value;
    case 'boolean':
      return value;
    case 'object':
      break;
    default:
      return reject(path, `${typeof value} is not a JSON value`);
  }
  if (value === null) return null;
  if (depth >= MAX_DEPTH) reject(path, `nested deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(value)) {
    const items: Json[] = [];
    for (let i = 0; i < value.length; i++) {
      const at = itemPath(path, i);
      items.push(snapshot(ownValue(value, String(i), at), at, depth + 1));
    }
    return items;
  }
  if (!isPlainObject(value)) reject(path, 'expected a plain JSON object');
  const keys = Object.keys(value);
  const copy: Record<string, Json> = {};
  for (const key of keys) {
    const at = childPath(path, key);
    defineOwn(copy, key, snapshot(ownValue(value, key, at), at, depth + 1));
  }
  return copy;
}

/** A new object with the given entries, in order, each an own property (`__proto__` included). */
export function objectOf(entries: readonly (readonly [string, unknown])[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) defineOwn(out, key, value);
  return out;
}

export function has(object: JsonObject, key: string): boolean {
  return Object.hasOwn(object, key);
}

export function field(object: JsonObject, key: string): Json | undefined {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** Refuses the first key of `object` that is not in `allowed`. */
export function onlyKeys(object: JsonObject, allowed: ReadonlySet<string>, path: string): void {
  for (const key of Object.keys(object)) if (!allowed.has(key)) reject(childPath(path, key), 'unknown field');
}

function wrongType(path: string, expected: string, value: Json): never {
  return reject(path, `expected ${expected}, got ${typeName(value)}`);
}

export function asObject(value: Json, path: string): JsonObject {
  return isObject(value) ? value : wrongType(path, 'an object', value);
}

/** A required field: present, whatever its value. */
export function required(object: JsonObject, key: string, path: string, what = 'required'): Json {
  const value = field(object, key);
  return value === undefined ? reject(childPath(path, key), what) : value;
}

/** Missing or null reads as null. */
export function optString(object: JsonObject, key: string, path: string): string | null {
  const value = field(object, key);
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : wrongType(childPath(path, key), 'a string or null', value);
}

export function reqString(object: JsonObject, key: string, path: string): string {
  const value = required(object, key, path);
  return typeof value === 'string' ? value : wrongType(childPath(path, key), 'a string', value);
}

/** Present, and a string or null. */
export function reqNullableString(object: JsonObject, key: string, path: string): string | null {
  required(object, key, path);
  return optString(object, key, path);
}

export function optObject(object: JsonObject, key: string, path: string): JsonObject | null {
  const value = field(object, key);
  if (value === undefined || value === null) return null;
  return isObject(value) ? value : wrongType(childPath(path, key), 'an object or null', value);
}

export function asArray(value: Json, path: string): readonly Json[] {
  return Array.isArray(value) ? (value as readonly Json[]) : wrongType(path, 'an array', value);
}

/** Missing or null reads as null. */
export function optStringArray(object: JsonObject, key: string, path: string): string[] | null {
  const value = field(object, key);
  if (value === undefined || value === null) return null;
  const at = childPath(path, key);
  return asArray(value, at).map((item, i) =>
    typeof item === 'string' ? item : wrongType(itemPath(at, i), 'a string', item),
  );
}

/** An array whose every item is an object; `undefined` when missing and `fallback` given. */
export function objectArray(
  object: JsonObject,
  key: string,
  path: string,
  fallback?: readonly JsonObject[],
): readonly JsonObject[] {
  const value = field(object, key);
  const at = childPath(path, key);
  if (value === undefined && fallback !== undefined) return fallback;
  if (value === undefined) return reject(at, 'required');
  return asArray(value, at).map((item, i) => asObject(item, itemPath(at, i)));
}

/** Whether a string carries something beyond whitespace (the value itself is never changed). */
export function filled(value: string | null): value is string {
  return value !== null && value.trim() !== '';
}
