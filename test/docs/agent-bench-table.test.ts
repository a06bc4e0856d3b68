import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const between = (path: string) =>
  /<!-- agent-bench:begin -->([\s\S]*?)<!-- agent-bench:end -->/.exec(readFileSync(path, 'utf8'))![1]!.trim();

describe("the README's agent-benchmark table", () => {
  it('is the category table of the run docs/agent-bench.md reports (npm run agent-bench -- --write writes both)', () => {
    const readme = between('README.md');
    expect(readme.split('\n').length).toBeGreaterThan(10);
    expect(between('docs/agent-bench.md')).toContain(readme);
    // Every category a task file names has its row.
    const categories = readdirSync('bench/agent/tasks').flatMap((file) =>
      (JSON.parse(readFileSync(`bench/agent/tasks/${file}`, 'utf8')) as { category: string }[]).map(
        (t) => t.category,
      ),
    );
    for (const category of new Set(categories)) expect(readme).toContain(`| ${category} `);
  });
});
