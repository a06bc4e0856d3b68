import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(process.cwd(), 'src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

function importsOf(source: string): string[] {
  return [
    ...source.matchAll(/(?:import|export)[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1] ?? m[2]!);
}

function layerOf(file: string): string {
  return relative(SRC, file).split('/')[0]!;
}

/** Which layers and packages each layer may import. Imports flow domain <- app <- adapters <- main. */
const allowedLayers: Record<string, string[]> = {
  domain: ['domain'],
  ports: ['domain', 'ports'],
  app: ['domain', 'ports', 'app'],
  adapters: ['domain', 'ports', 'app', 'adapters'],
  main: ['domain', 'ports', 'app', 'adapters', 'main'],
};
const allowedPackages: Record<string, RegExp> = {
  domain: /^temporal-polyfill$/,
  ports: /^$/,
  app: /^$/,
};
// Reading the clock, the environment or randomness is I/O the core must receive as a parameter.
const forbiddenInCore = [
  /\bDate\.now\(/,
  /\bnew Date\(/,
  /\bprocess\./,
  /\bMath\.random\(/,
  /\bcrypto\./,
  /\bperformance\./,
  /\brequire\(/,
];

describe('hexagonal layering', () => {
  const files = filesUnder(SRC);

  it('finds the layers', () => {
    expect(new Set(files.map(layerOf))).toEqual(new Set(Object.keys(allowedLayers)));
  });

  it.each(files.map((f) => [relative(SRC, f), f]))('%s imports only what its layer may', (_name, file) => {
    const layer = layerOf(file);
    const source = readFileSync(file, 'utf8');
    for (const specifier of importsOf(source)) {
      if (specifier.startsWith('.')) {
        const target = layerOf(join(file, '..', specifier));
        expect(allowedLayers[layer], `${specifier} crosses into ${target}`).toContain(target);
      } else if (layer in allowedPackages) {
        expect(specifier, `${layer} may not import ${specifier}`).toMatch(allowedPackages[layer]!);
      }
    }
    if (layer === 'domain' || layer === 'app' || layer === 'ports') {
      for (const pattern of forbiddenInCore) expect(source, `${pattern} in ${layer}`).not.toMatch(pattern);
    }
  });

  it('the checker itself catches a violation', () => {
    expect(
      importsOf("import Database from 'better-sqlite3';\nimport { x } from '../adapters/y.js';"),
    ).toEqual(['better-sqlite3', '../adapters/y.js']);
    expect('const t = Date.now();').toMatch(forbiddenInCore[0]!);
  });
});
