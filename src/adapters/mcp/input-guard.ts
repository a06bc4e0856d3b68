/**
 * The one edge rule for hostile input, applied to every tool's raw arguments
 * before schema validation, the digest, the audit record or the database see
 * them. It walks the value iteratively (a 100,000-deep object cannot overflow
 * the stack) and stops at the first problem, which it names by field path.
 */
export const INPUT_LIMITS = {
  /** Nesting below the arguments object; the deepest tool input needs 5. */
  maxDepth: 8,
  /** Keys in any one object. */
  maxKeys: 64,
  /** Items in any one array (a year of date overrides is 366). */
  maxArrayItems: 400,
  /** Values (objects, arrays, scalars) in the whole arguments object. */
  maxValues: 20_000,
  /** UTF-16 code units in one string; schemas set tighter bounds per field. */
  maxStringLength: 10_000,
  /** UTF-16 code units over every string and key together. */
  maxTotalText: 256 * 1024,
} as const;

export type InputLimits = { readonly [K in keyof typeof INPUT_LIMITS]: number };

export interface InputProblem {
  /** Where the problem is, e.g. `customer.extra.x` or `calendarIds[3]`; printable and bounded. */
  readonly field: string;
  readonly message: string;
  /** Over a size limit of the whole (values or text in all), not a fault of one field. */
  readonly tooLarge?: true;
}

// Prototype-polluting names are refused outright: no tool has such a field.
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Why a string cannot be accepted anywhere, or null. */
export function stringProblem(text: string): string | null {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return 'contains a lone UTF-16 surrogate';
      const point = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00);
      // Tag characters are invisible and can smuggle instructions to a model reading the text.
      if (point >= 0xe0000 && point <= 0xe007f) return 'contains an invisible tag character';
      if ((point & 0xfffe) === 0xfffe) return 'contains a Unicode noncharacter';
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return 'contains a lone UTF-16 surrogate';
    else if (c === 0) return 'contains a NUL character';
    // C0 (but tab, LF, CR), DEL and C1: a terminal or log viewer may act on them.
    else if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || (c >= 0x7f && c <= 0x9f))
      return 'contains a control character';
    // Embedding, override and isolate controls reorder what a person reads (Trojan-Source style).
    else if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069))
      return 'contains a bidirectional override character';
    else if (c === 0xfeff) return 'contains a byte-order mark';
    else if (c === 0xfffe || c === 0xffff || (c >= 0xfdd0 && c <= 0xfdef))
      return 'contains a Unicode noncharacter';
  }
  return null;
}

/** A field path safe to print, log and store: odd characters escaped, each part and the whole bounded. */
export function printableField(parts: readonly (string | number)[]): string {
  let out = '';
  for (const part of parts) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += `${out === '' ? '' : '.'}${printable(part, 64)}`;
    if (out.length > 200) return `${out.slice(0, 200)}…`;
  }
  return out || '(arguments)';
}

/** Escapes anything that is not plain printable text as \uXXXX and truncates to `max` characters. */
export function printable(text: string, max: number): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (out.length >= max) return `${out}…`;
    const c = text.charCodeAt(i);
    const plain =
      c >= 0x20 &&
      !(c >= 0x7f && c <= 0x9f) &&
      !(c >= 0xd800 && c <= 0xdfff) &&
      !(c >= 0x2028 && c <= 0x202e) &&
      !(c >= 0x2066 && c <= 0x2069);
    out += plain ? text[i] : `\\u${c.toString(16).padStart(4, '0')}`;
  }
  return out;
}

interface Frame {
  readonly value: unknown;
  readonly path: readonly (string | number)[];
  readonly depth: number;
}

/**
 * The first problem in `args`, or null when every string, key, number and shape is acceptable.
 * `limits`: Holdfast's own tools' by default; a contract's tools may carry more (hotel-ops: mail).
 */
export function inspectInput(args: unknown, limits: InputLimits = INPUT_LIMITS): InputProblem | null {
  const stack: Frame[] = [{ value: args, path: [], depth: 0 }];
  let values = 0;
  let text = 0;
  const problem = (path: readonly (string | number)[], message: string): InputProblem => ({
    field: printableField(path),
    message,
  });
  const tooLarge = (message: string): InputProblem => ({ ...problem([], message), tooLarge: true });
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (++values > limits.maxValues) return tooLarge(`more than ${limits.maxValues} values in all`);
    if (typeof value === 'string') {
      if (value.length > limits.maxStringLength)
        return problem(path, `longer than ${limits.maxStringLength} characters`);
      text += value.length;
      if (text > limits.maxTotalText)
        return tooLarge(`more than ${limits.maxTotalText} characters of text in all`);
      const bad = stringProblem(value);
      if (bad) return problem(path, bad);
      continue;
    }
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return problem(path, 'must be a finite number');
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= limits.maxDepth) return problem(path, `nested deeper than ${limits.maxDepth} levels`);
    if (Array.isArray(value)) {
      if (value.length > limits.maxArrayItems)
        return problem(path, `more than ${limits.maxArrayItems} items`);
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i], path: [...path, i], depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > limits.maxKeys) return problem(path, `more than ${limits.maxKeys} keys`);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      const keyPath = [...path, key];
      if (FORBIDDEN_KEYS.has(key)) return problem(keyPath, 'is not an allowed field name');
      text += key.length;
      if (key.length > limits.maxStringLength || text > limits.maxTotalText)
        return tooLarge(`more than ${limits.maxTotalText} characters of text in all`);
      const bad = stringProblem(key);
      if (bad) return problem(keyPath, `field name ${bad}`);
      stack.push({ value: (value as Record<string, unknown>)[key], path: keyPath, depth: depth + 1 });
    }
  }
  return null;
}
