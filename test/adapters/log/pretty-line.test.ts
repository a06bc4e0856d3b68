import { describe, expect, it } from 'vitest';
import { jsonLogger } from '../../../src/adapters/log/index.js';
import { prettyLine } from '../../../src/adapters/log/pretty-line.js';

describe('logs for people', () => {
  it('one readable line per event: time with its zone, level when not info, message, then the fields', () => {
    expect(
      prettyLine(
        '{"level":"info","timestamp":"2026-12-03T09:05:01.123Z","url":"http://127.0.0.1:3000/mcp","created":3,"message":"holdfast listening"}',
      ),
    ).toBe('09:05:01Z holdfast listening  url=http://127.0.0.1:3000/mcp created=3\n');
    expect(
      prettyLine(
        '{"level":"warn","timestamp":"2026-12-03T09:05:01.123Z","hint":"keep a copy","message":"created audit key"}',
      ),
    ).toBe('09:05:01Z WARN created audit key  hint="keep a copy"\n');
    // Text from outside (a client's declared name, an upstream's error) cannot start a line of its own.
    const forged = prettyLine(
      JSON.stringify({
        level: 'info',
        timestamp: '2026-12-03T09:05:01.123Z',
        client: 'x\n09:05:02Z admin approved',
        message: 'call\rdone\nfake',
      }),
    );
    expect(forged.split('\n')).toHaveLength(2);
    expect(forged).not.toContain('\r');
    // A line that is not JSON passes as it came: nothing is lost.
    expect(prettyLine('not json\n')).toBe('not json\n');
  });

  it('the logger writes the same event as a JSON line or as that readable line', () => {
    const json: string[] = [];
    const pretty: string[] = [];
    jsonLogger((line) => json.push(line)).warn('slow store', { ms: 12, store: 'sqlite' });
    jsonLogger((line) => pretty.push(line), 'pretty').warn('slow store', { ms: 12, store: 'sqlite' });
    expect(JSON.parse(json[0]!)).toMatchObject({
      level: 'warn',
      message: 'slow store',
      ms: 12,
      store: 'sqlite',
    });
    expect(pretty[0]).toMatch(/^\d\d:\d\d:\d\dZ WARN slow store {2}ms=12 store=sqlite\n$/);
  });
});
