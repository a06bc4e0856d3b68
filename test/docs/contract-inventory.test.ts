import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The inventory of every seed's requirements (docs/contracts/NNN-*.md) is not the tests: each row
// quotes the seed's own sentence (checked against the seed text), says what Holdfast does, names
// the contract test that proves it and whether it is met. Here: every row's quote is in its seed,
// every row names a test whose title carries the row's id, every contract test names rows that
// exist, a difference says which harm the seed's way would do and is proven by an attack, and
// docs/contracts.md's counts are the inventory's own.

const DIR = 'docs/contracts';
const TESTS = 'test/contracts';
const ALL_SEEDS = ['000', '001', '002', '003', '004'];
const REASONS = ['person only', 'double-book', 'lose'];

interface Row {
  readonly id: string;
  readonly quote: string;
  readonly holdfast: string;
  readonly tests: readonly string[];
  readonly verdict: string;
  readonly file: string;
}

/** A table cell as written: `\|` is a pipe, `<br>` a line break, backticks code. */
const cell = (text: string) => text.trim().replace(/\\\|/g, '|');
const squash = (text: string) => text.replace(/<br>/g, ' ').replace(/\s+/g, ' ').trim();

function inventoryFiles(): string[] {
  return readdirSync(DIR)
    .filter((f) => /^\d{3}-[\w-]+\.md$/.test(f))
    .sort();
}

/** The seeds inventoried: every one of ALL_SEEDS (the first test checks). */
const SEEDS = inventoryFiles().map((f) => f.slice(0, 3));

/** The seeds docs/contracts.md still counts by their test files. */
const counted = () =>
  [
    ...readFileSync('docs/contracts.md', 'utf8').matchAll(
      /^\| (\d{3}) [^|]*\| `test\/contracts\/[^`]+` *\|/gm,
    ),
  ].map((m) => m[1]!);

function rowsOf(file: string): Row[] {
  const text = readFileSync(join(DIR, file), 'utf8');
  return text
    .split('\n')
    .filter((line) => /^\| \d{3}-[\w.-]+ \|/.test(line))
    .map((line) => {
      const cells = line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map(cell);
      expect(cells, `${file}: ${line.slice(0, 60)}`).toHaveLength(5);
      const [id, quote, holdfast, tests, verdict] = cells as [string, string, string, string, string];
      return {
        id,
        quote: quote.replace(/^「|」$/g, ''),
        holdfast,
        tests: tests.split(',').map((t) => t.trim().replace(/`/g, '')),
        verdict,
        file,
      };
    });
}

/** Each contract test's title, with the row ids in its leading brackets. */
function contractTests(): { file: string; title: string; ids: string[] }[] {
  return readdirSync(TESTS)
    .filter((f) => /^(seed|profile)-\d{3}-[\w-]+\.test\.ts$/.test(f) && SEEDS.includes(/\d{3}/.exec(f)![0]))
    .flatMap((file) =>
      [...readFileSync(join(TESTS, file), 'utf8').matchAll(/^\s+it\(\s*(['`"])(.*?)\1,/gm)].map((m) => {
        const title = m[2]!;
        const ids = /^\[([^\]]+)\]/.exec(title)?.[1]?.split(/\s+/) ?? [];
        return { file: file.replace(/\.test\.ts$/, ''), title, ids };
      }),
    );
}

const seedText = (seed: string) => {
  const name = readdirSync(join(DIR, 'seeds')).find((f) => f.startsWith(`${seed}_`))!;
  return squash(readFileSync(join(DIR, 'seeds', name), 'utf8'));
};

describe('docs/contracts: the inventory of each seed', () => {
  const files = inventoryFiles();
  const rows = files.flatMap(rowsOf);
  const tests = contractTests();

  it('has one inventory per seed not counted by its test file any more, each row id unique and of its seed', () => {
    expect(new Set(SEEDS).size).toBe(SEEDS.length);
    expect([...SEEDS, ...counted()].sort()).toEqual(ALL_SEEDS);
    const ids = rows.map((r) => r.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    for (const row of rows) expect(row.id.slice(0, 3), row.id).toBe(row.file.slice(0, 3));
  });

  it('quotes each requirement as the seed says it, in its own language', () => {
    const misquoted = rows.filter((row) => {
      const quote = squash(row.quote.replace(/`/g, ''));
      const seed = seedText(row.id.slice(0, 3)).replace(/`/g, '');
      return quote.length === 0 || !seed.includes(quote);
    });
    expect(misquoted.map((r) => `${r.id}: ${r.quote.slice(0, 80)}`)).toEqual([]);
  });

  it('names, for every row, a contract test that exists and carries the row’s id', () => {
    const unproven = rows.filter(
      (row) =>
        row.holdfast.length === 0 ||
        row.tests.length === 0 ||
        row.tests.some(
          (file) =>
            !existsSync(join(TESTS, `${file}.test.ts`)) ||
            !tests.some((t) => t.file === file && t.ids.includes(row.id)),
        ),
    );
    expect(unproven.map((r) => `${r.id} → ${r.tests.join(', ')}`)).toEqual([]);
  });

  it('has every contract test name rows of the inventory', () => {
    const known = new Set(rows.map((r) => r.id));
    const stray = tests.filter((t) => t.ids.length === 0 || t.ids.some((id) => !known.has(id)));
    expect(stray.map((t) => `${t.file}: ${t.title.slice(0, 90)}`)).toEqual([]);
  });

  it('says met, or different with the harm the seed’s way would do, proven by an attack', () => {
    const pattern = new RegExp(`^(met\\b.*|different \\((${REASONS.join('|')})\\): .+)$`);
    expect(rows.filter((r) => !pattern.test(r.verdict)).map((r) => `${r.id}: ${r.verdict}`)).toEqual([]);
    const unattacked = rows
      .filter((r) => r.verdict.startsWith('different'))
      .filter((r) => !tests.some((t) => t.ids.includes(r.id) && /\battack/i.test(t.title)));
    expect(unattacked.map((r) => r.id)).toEqual([]);
  });

  it('is what docs/contracts.md counts: requirements, met and different per seed', () => {
    const index = readFileSync('docs/contracts.md', 'utf8');
    const stated = [
      ...index.matchAll(/^\| \[(\d{3})[^\]]*\]\([^)]+\) *\| *(\d+) *\| *(\d+) *\| *(\d+) *\|/gm),
    ].map((m) => ({ seed: m[1], total: Number(m[2]), met: Number(m[3]), different: Number(m[4]) }));
    const counted = SEEDS.map((seed) => {
      const of = rows.filter((r) => r.id.startsWith(`${seed}-`));
      const different = of.filter((r) => r.verdict.startsWith('different')).length;
      return { seed, total: of.length, met: of.length - different, different };
    });
    expect(stated).toEqual(counted);
  });
});
