import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { localPrebuild } from '../../scripts/local-prebuild.mjs';

const run = promisify(execFile);

export interface PackedPackage {
  /** The folder holding the tarball and the application that installed it. */
  dir: string;
  /** An application folder whose node_modules got the tarball from `npm install`. */
  app: string;
  tarball: string;
  /** What `npm pack --json` reported: bytes packed and unpacked, and every file's path. */
  packed: { size: number; unpackedSize: number; files: string[] };
}

/**
 * Holdfast as a user gets it: `npm pack`, then `npm install ./holdfast-x.tgz` into an empty
 * application. Its dependencies come from npm's cache (the registry where the cache lacks one);
 * better-sqlite3's install script finds its binary as a local prebuild made from this checkout's
 * (the registry's package would otherwise compile SQLite for a minute). The suite builds dist
 * first, so pack skips prepack's build: a rebuild here would rewrite files other tests run.
 */
export async function installPackedPackage(): Promise<PackedPackage> {
  const dir = mkdtempSync(join(tmpdir(), 'holdfast-pack-'));
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir]);
  const [report] = JSON.parse(stdout) as [
    { filename: string; size: number; unpackedSize: number; files: { path: string }[] },
  ];
  const app = join(dir, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'an-app', type: 'module', private: true }));
  await run(
    'npm',
    [
      'install',
      join(dir, report.filename),
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
    ],
    { cwd: app, env: { ...process.env, ...localPrebuild(join(dir, 'prebuilds')) } },
  );
  return {
    dir,
    app,
    tarball: join(dir, report.filename),
    packed: { size: report.size, unpackedSize: report.unpackedSize, files: report.files.map((f) => f.path) },
  };
}
