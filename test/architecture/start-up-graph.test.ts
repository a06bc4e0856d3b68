import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(process.cwd(), 'src');

/** The modules a file loads before it runs: value imports and re-exports, not `import type` nor `import()`. */
function staticImportsOf(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\/|(^|[^:])\/\/.*$/gm, '$1');
  const pattern = /\b(?:import|export)\s+(?!type\b)(?:[^'"();]*?\bfrom\s*)?['"]([^'"]+)['"]/g;
  return [...code.matchAll(pattern)].map((m) => m[1]!);
}

function resolve(from: string, specifier: string): string {
  const base = posix.join(posix.dirname(from), specifier).replace(/\.js$/, '');
  const found = ['.ts', '.tsx'].map((ext) => base + ext).find((p) => existsSync(join(SRC, p)));
  if (!found) throw new Error(`${from}: cannot resolve ${specifier}`);
  return found;
}

/** Every source module and package loaded, statically, by loading `entry` (a path under src/). */
function staticGraph(entry: string): { modules: string[]; packages: string[] } {
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    for (const specifier of staticImportsOf(readFileSync(join(SRC, path), 'utf8')))
      if (specifier.startsWith('.')) visit(resolve(path, specifier));
      else if (!specifier.startsWith('node:')) packages.add(specifier);
  };
  visit(entry);
  return { modules: [...seen], packages: [...packages] };
}

/** The pages a person uses: loaded with the first request for one, never at start-up. */
const PAGE_CODE = /^adapters\/http\/(console\/|pages\.ts|.*-pages\.tsx?$|payment-form|approval-links)/;

describe('start-up loads only what the command runs', () => {
  it('the CLI entry loads arguments, help and error wording: no package, no use case, no runtime', () => {
    const { modules, packages } = staticGraph('main/cli.ts');
    expect(packages).toEqual([]);
    expect(modules.filter((p) => p.startsWith('app/'))).toEqual([]);
    expect(modules.filter((p) => p.startsWith('main/runtime/')).sort()).toEqual([
      'main/runtime/startup-error.ts',
      'main/runtime/version.ts',
    ]);
    // Adapters only through their doors, and only the small ones (an error's wording, a version).
    expect(modules.filter((p) => p.startsWith('adapters/') && p.endsWith('/index.ts')).sort()).toEqual([
      'adapters/mcp/index.ts',
      'adapters/net/index.ts',
      'adapters/storage/index.ts',
    ]);
  });

  it('holdfast serve loads no page code, no Prometheus and no trace exporter before its first page request', () => {
    const graph = staticGraph('main/runtime/serve.ts').modules;
    expect(graph.filter((p) => PAGE_CODE.test(p))).toEqual([]);
    expect(graph.filter((p) => /telemetry\/(metrics|trace-export)\.ts$/.test(p))).toEqual([]);
  });

  it('the check can fail: the pages door loads the console statically, a type import loads nothing', () => {
    expect(staticGraph('adapters/http/pages.ts').modules.filter((p) => PAGE_CODE.test(p))).toContain(
      'adapters/http/console/console-app.tsx',
    );
    expect(staticImportsOf("import type { A } from './a.js';\nexport type { B } from './b.js';")).toEqual([]);
    expect(staticImportsOf("const x = await import('./lazy.js');")).toEqual([]);
    expect(
      staticImportsOf("import './side.js';\nexport { c } from './c.js';\nimport d from './d.js';"),
    ).toEqual(['./side.js', './c.js', './d.js']);
  });
});
