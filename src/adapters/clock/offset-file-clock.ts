import { readFileSync } from 'node:fs';
import type { Clock } from '../../ports/clock.js';

/**
 * Development only (`--dev-clock FILE`): the real time plus the milliseconds written in FILE, read
 * on every call so that a benchmark or a test moves the server's and its commands' time at once
 * ("the person took ten minutes") without waiting. A missing or unreadable file counts as 0; a file
 * that is not a whole number is an error, so that a typo never silently runs on real time.
 */
export function offsetFileClock(path: string): Clock {
  return { now: () => Date.now() + offsetIn(path) };
}

function offsetIn(path: string): number {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').trim();
  } catch {
    return 0;
  }
  if (text === '') return 0;
  const offset = Number(text);
  if (!Number.isSafeInteger(offset))
    throw new Error(
      `--dev-clock ${path}: expected whole milliseconds to add to the time, got "${text.slice(0, 40)}"`,
    );
  return offset;
}
