import { createHash, createHmac } from 'node:crypto';

const MAX_VALUES = 50_000;
const END = Symbol('end');

type Token = unknown | { readonly [END]: string };

/**
 * sha256 (HMAC-SHA256 with `key`) of any JSON value, including input the edge refused (lone
 * surrogates, 100,000-deep nesting, non-finite numbers): walked iteratively with sorted keys,
 * strings written as well-formed JSON, and cut off after a fixed number of values. Never throws.
 */
export function boundedDigest(value: unknown, key?: Buffer): string {
  const hash = key ? createHmac('sha256', key) : createHash('sha256');
  const stack: Token[] = [value];
  let values = 0;
  while (stack.length > 0) {
    const token = stack.pop();
    if (typeof token === 'object' && token !== null && END in token) {
      hash.update((token as { [END]: string })[END]);
      continue;
    }
    if (++values > MAX_VALUES) {
      hash.update('…');
      break;
    }
    if (typeof token === 'string') hash.update(JSON.stringify(token));
    else if (typeof token === 'number') hash.update(Number.isFinite(token) ? String(token) : 'null');
    else if (typeof token === 'boolean') hash.update(String(token));
    else if (token === null || typeof token !== 'object') hash.update('null');
    else if (Array.isArray(token)) {
      hash.update('[');
      stack.push({ [END]: ']' });
      for (let i = token.length - 1; i >= 0; i--) {
        stack.push(token[i]);
        if (i > 0) stack.push({ [END]: ',' });
      }
    } else {
      const keys = Object.keys(token).sort();
      hash.update('{');
      stack.push({ [END]: '}' });
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push((token as Record<string, unknown>)[keys[i]!]);
        stack.push({ [END]: `${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:` });
      }
    }
  }
  return `${key ? 'hmac-sha256' : 'sha256'}:${hash.digest('hex')}`;
}
