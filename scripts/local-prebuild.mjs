// better-sqlite3's compiled addon from this checkout, named and packed as prebuild-install looks
// for it: installing Holdfast's tarball elsewhere (a test's application, the desktop bundle) then
// takes the binary from here instead of compiling SQLite for a minute (GitHub, where its
// prebuilt binaries live, is out of reach on these machines).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes the prebuild into `folder`; returns the environment that makes npm install use it. */
export function localPrebuild(folder, root = process.cwd()) {
  const addon = join(root, 'node_modules/better-sqlite3');
  const { version } = JSON.parse(readFileSync(join(addon, 'package.json'), 'utf8'));
  const staging = join(folder, 'staging');
  mkdirSync(join(staging, 'build/Release'), { recursive: true });
  copyFileSync(
    join(addon, 'build/Release/better_sqlite3.node'),
    join(staging, 'build/Release/better_sqlite3.node'),
  );
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['-czf', join(folder, name), '-C', staging, 'build']);
  return { npm_config_better_sqlite3_local_prebuilds: folder };
}
