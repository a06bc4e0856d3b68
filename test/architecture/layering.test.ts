import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cyclesOf, importsOf, violationsOf } from './rules.js';

const SRC = join(process.cwd(), 'src');
const FIXTURES = join(process.cwd(), 'test', 'architecture', 'fixtures');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(join(dir, entry.name))
      : /\.tsx?$/.test(entry.name)
        ? [join(dir, entry.name)]
        : [],
  );
}

describe('hexagonal layering', () => {
  const files = filesUnder(SRC).map((file) => relative(SRC, file).split(sep).join('/'));

  it('finds every layer', () => {
    expect(new Set(files.map((f) => f.split('/')[0]))).toEqual(
      new Set(['domain', 'ports', 'app', 'adapters', 'main', 'client', 'demo']),
    );
  });

  it.each(files)('%s keeps to its layer', (file) => {
    expect(violationsOf(file, readFileSync(join(SRC, file), 'utf8'))).toEqual([]);
  });

  it('has no import cycle, type-only and dynamic imports included', () => {
    const sources = new Map(files.map((file) => [file, readFileSync(join(SRC, file), 'utf8')]));
    expect(cyclesOf(sources)).toEqual([]);
  });
});

describe('the cycle rule catches what it is for', () => {
  it('finds a cycle through a type-only import, and a file importing itself; not a chain', () => {
    const cycle = new Map([
      ['domain/errors.ts', "import type { Intent } from './approval/intent.js';"],
      ['domain/approval/intent.ts', "import type { Booking } from '../booking/booking.js';"],
      ['domain/booking/booking.ts', "import { DomainError } from '../errors.js';"],
      ['domain/self.ts', "export { x } from './self.js';"],
      ['domain/leaf.ts', "import { DomainError } from './errors.js';"],
    ]);
    expect(cyclesOf(cycle)).toEqual([
      ['domain/approval/intent.ts', 'domain/booking/booking.ts', 'domain/errors.ts'],
      ['domain/self.ts'],
    ]);
    const chain = new Map([
      ['a/one.ts', "import { two } from './two.js';"],
      ['a/two.ts', "import type { three } from './three.js';"],
      ['a/three.ts', 'export const three = 3;'],
    ]);
    expect(cyclesOf(chain)).toEqual([]);
  });
});

describe('the layering rules catch what they are for (one violating fixture per rule)', () => {
  const fixtures = readdirSync(FIXTURES).filter((f) => f.endsWith('.txt'));

  it('has a fixture for every rule', () => {
    const rules = new Set(
      fixtures.map((f) => /^\/\/ breaks: (.+)$/m.exec(readFileSync(join(FIXTURES, f), 'utf8'))![1]),
    );
    expect(rules).toEqual(
      new Set([
        'layer direction',
        'I/O in the core',
        'adapter internals',
        'package in the core',
        'fetch outside the guard',
        'engine test in shared SQL',
        'main past an adapter door',
      ]),
    );
  });

  it.each(fixtures)('%s is refused for the rule it breaks', (fixture) => {
    const source = readFileSync(join(FIXTURES, fixture), 'utf8');
    const path = /^\/\/ as: (.+)$/m.exec(source)![1]!;
    const rule = /^\/\/ breaks: (.+)$/m.exec(source)![1]!;
    expect(violationsOf(path, source).map((v) => v.rule)).toContain(rule);
  });

  it('sees every kind of import; comments trip no rule', () => {
    expect(
      importsOf(
        [
          "import Database from 'better-sqlite3';",
          "import type { X } from '../ports/x.js';",
          "import '../adapters/side-effect.js';",
          "export { y } from './y.js';",
          "export type { Z } from './z.js';",
          "const m = await import('./lazy.js');",
        ].join('\n'),
      ),
    ).toEqual([
      'better-sqlite3',
      '../ports/x.js',
      '../adapters/side-effect.js',
      './y.js',
      './z.js',
      './lazy.js',
    ]);
    expect(
      violationsOf('domain/prose.ts', '/** Never call Date.now() here. */\nexport const a = 1;'),
    ).toEqual([]);
    expect(
      violationsOf('app/prose.ts', "// unlike import '../adapters/x.js', this imports nothing\n"),
    ).toEqual([]);
  });
});
