import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** Every file under a folder, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The HOLDFAST_* (and a profile's own: DELTAT_*) variables the code reads (`env.HOLDFAST_X`, `env['HOLDFAST_X']`). */
function variablesRead(): string[] {
  const names = new Set<string>();
  for (const file of filesUnder('src').filter((f) => /\.tsx?$/.test(f)))
    for (const m of readFileSync(file, 'utf8').matchAll(/\benv(?:\.|\[')((?:HOLDFAST|DELTAT)_[A-Z0-9_]+)/g))
      names.add(m[1]!);
  return [...names].sort();
}

describe('.env.example', () => {
  it('lists every HOLDFAST_* and DELTAT_* variable the code reads, and no other', () => {
    const listed = [
      ...readFileSync('.env.example', 'utf8').matchAll(/^((?:HOLDFAST|DELTAT)_[A-Z0-9_]+)=/gm),
    ].map((m) => m[1]!);
    const read = variablesRead();
    expect(read.length).toBeGreaterThan(30);
    expect([...listed].sort()).toEqual(read);
    expect(new Set(listed).size).toBe(listed.length);
  });
});
