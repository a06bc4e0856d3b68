import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// docs/contracts.md counts each contract's requirements; the counts are the test files' own.
describe('docs/contracts.md: the conformance counts', () => {
  it('say as many requirements, and as many `different:`, as each contract’s test file has', () => {
    const doc = readFileSync('docs/contracts.md', 'utf8');
    const rows = [
      ...doc.matchAll(
        /^\| (\d{3}) [^|]*\| `(test\/contracts\/[^`]+)` *\| *(\d+) \| *(\d+) \| *(\d+) \| *(\d+) \|$/gm,
      ),
    ];
    // The seeds inventoried row by row (docs/contracts/NNN-*.md) are checked by contract-inventory.test.ts.
    const inventoried = readdirSync('docs/contracts')
      .filter((f) => /^\d{3}-/.test(f))
      .map((f) => f.slice(0, 3));
    expect(rows.map((r) => r[1])).toEqual(
      ['001', '002', '003', '004'].filter((s) => !inventoried.includes(s)),
    );
    for (const [, , file, total, met, different, missing] of rows) {
      const titles = [...readFileSync(file!, 'utf8').matchAll(/^\s+it\(\s*['`"](.*)/gm)].map((m) => m[1]!);
      const differing = titles.filter((t) => /^[\w.-]+ different:/.test(t)).length;
      expect({
        file,
        total: Number(total),
        different: Number(different),
        met: Number(met),
        missing: Number(missing),
      }).toEqual({
        file,
        total: titles.length,
        different: differing,
        met: titles.length - differing,
        missing: 0,
      });
    }
  });
});
