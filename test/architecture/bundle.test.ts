import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// The entry people and hosts run is the bundle scripts/bundle.mjs writes from tsc's output (the
// test setup builds it). The rule start-up-graph.test.ts keeps for the sources must hold for it too.
const BIN = join(process.cwd(), 'dist/bin');

/** Chunks a chunk imports before it runs (the bundler writes one `import … from "./x.js"` per line). */
function staticChunksOf(file: string): string[] {
  const code = readFileSync(join(BIN, file), 'utf8');
  return [...code.matchAll(/^(?:import|export)\s(?:[^;]*?\sfrom\s)?"\.\/([^"]+)";?$/gm)].map((m) => m[1]!);
}

function staticClosure(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    staticChunksOf(file).forEach(visit);
  };
  visit(entry);
  return [...seen];
}

/** The bundler marks each package module it inlines with a `// node_modules/<package>/…` line. */
const packagesIn = (file: string) =>
  [...readFileSync(join(BIN, file), 'utf8').matchAll(/^\/\/ node_modules\/((?:@[^/]+\/)?[^/]+)\//gm)].map(
    (m) => m[1]!,
  );

describe('the bundled entry (dist/bin)', () => {
  it('loads no package before a command runs, and each command later from its own chunks', () => {
    const closure = staticClosure('holdfast.js');
    expect(closure.flatMap(packagesIn)).toEqual([]);
    const everything = readdirSync(BIN).filter((name) => name.endsWith('.js'));
    const inlined = new Set(everything.flatMap(packagesIn));
    // The walk above can see packages: the MCP SDK and zod are in the bundle, behind dynamic imports.
    expect(inlined).toContain('@modelcontextprotocol/server');
    expect(inlined).toContain('zod');
    expect(closure.length).toBeLessThan(everything.length / 4);
  });

  it('starts the SQLite writer thread from the file beside the chunk that starts it', () => {
    const starter = readdirSync(BIN).filter((name) =>
      readFileSync(join(BIN, name), 'utf8').includes('new URL("./writer-worker.js"'),
    );
    expect(starter.length).toBe(1);
    expect(readdirSync(BIN)).toContain('writer-worker.js');
  });
});
