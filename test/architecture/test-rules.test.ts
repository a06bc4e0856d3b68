import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const TEST = join(process.cwd(), 'test');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** A test that blocks its event loop cannot see its pooled connections close (docs/testing.md). */
const BLOCKING = /\b(spawnSync|execFileSync|execSync)\s*\(/;
/** Set-up that runs before any connection exists: the build before the workers, the test CA's openssl. */
const MAY_BLOCK = new Set(['global-setup.ts', 'support/test-ca.ts']);
const SKIPPED_OR_FOCUSED = /\b(it|test|describe)\.(skip|only|todo)\(|\bx(it|describe)\(/;

/** Strips comments, so prose that names a call is not a call. */
const code = (source: string) =>
  source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

describe('rules for tests (docs/testing.md)', () => {
  const files = filesUnder(TEST)
    .map((file) => relative(TEST, file).split(sep).join('/'))
    // This file names the calls it looks for; its last test proves the patterns instead.
    .filter(
      (file) => !file.startsWith('architecture/fixtures/') && file !== 'architecture/test-rules.test.ts',
    );

  it('finds the test files', () => {
    expect(files.filter((f) => f.endsWith('.test.ts')).length).toBeGreaterThan(100);
  });

  it.each(files)('%s runs no program synchronously and skips or focuses nothing', (file) => {
    const text = code(readFileSync(join(TEST, file), 'utf8'));
    expect(SKIPPED_OR_FOCUSED.test(text)).toBe(false);
    if (!MAY_BLOCK.has(file)) expect(BLOCKING.exec(text)?.[0] ?? null).toBeNull();
  });

  it('catches what it is for', () => {
    expect(BLOCKING.test("const run = spawnSync(process.execPath, ['x']);")).toBe(true);
    expect(BLOCKING.test("execFileSync('npx', ['tsc'])")).toBe(true);
    expect(BLOCKING.test("const run = await runProcess('npx', ['x']);")).toBe(false);
    expect(SKIPPED_OR_FOCUSED.test("it.only('x', () => {})")).toBe(true);
    expect(SKIPPED_OR_FOCUSED.test("describe.skip('x', () => {})")).toBe(true);
    expect(SKIPPED_OR_FOCUSED.test("it('x', () => {})")).toBe(false);
  });
});
