// Which Chromium a test or a script drives, shared by test/support/browser.ts and the interop
// drivers (plain JS, so a driver process needs no TypeScript loader). Never downloads anything.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, createReadStream, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
];

/** An executable of that name on PATH, or null. */
export function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** Unpacks a .tar.br archive with Node's brotli and the system's tar. */
async function untarBrotli(archive, into) {
  mkdirSync(into, { recursive: true });
  const tar = spawn('tar', ['-x', '-C', into], { stdio: ['pipe', 'ignore', 'inherit'] });
  const exited = new Promise((resolve, reject) =>
    tar.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tar exited with ${code}`)))),
  );
  await pipeline(createReadStream(archive), createBrotliDecompress(), tar.stdin);
  await exited;
}

/**
 * The Chromium that @sparticuz/chromium ships inside its npm package. On a machine without
 * Chromium's shared libraries (by `ldd`), the Amazon Linux 2023 libraries it also ships are
 * unpacked and put on the browser's LD_LIBRARY_PATH.
 */
async function packagedChromium() {
  const { default: packaged } = await import('@sparticuz/chromium');
  const executablePath = await packaged.executablePath();
  const ldd = spawnSync('ldd', [executablePath], { encoding: 'utf8' });
  if (ldd.status === 0 && !ldd.stdout.includes('not found'))
    return { executablePath, source: '@sparticuz/chromium' };
  const libs = join(tmpdir(), 'holdfast-chromium-libs');
  if (!existsSync(join(libs, 'lib'))) {
    const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
    await untarBrotli(join(dirname(entry), '../../bin/al2023.tar.br'), libs);
  }
  return {
    executablePath,
    source: '@sparticuz/chromium with its bundled libraries',
    env: { LD_LIBRARY_PATH: join(libs, 'lib') },
  };
}

/**
 * CHROMIUM_PATH; else Debian's chromium (unless HOLDFAST_TEST_NO_SYSTEM_CHROMIUM=1); else the
 * Chromium shipped in an npm package. If none works, one clear line names the options.
 */
export async function chooseBrowser(env = process.env) {
  if (env.CHROMIUM_PATH) return { executablePath: env.CHROMIUM_PATH, source: 'CHROMIUM_PATH' };
  if (env.HOLDFAST_TEST_NO_SYSTEM_CHROMIUM !== '1') {
    const system = existsSync('/usr/bin/chromium') ? '/usr/bin/chromium' : onPath('chromium');
    if (system) return { executablePath: system, source: system };
  }
  try {
    return await packagedChromium();
  } catch (error) {
    throw new Error(
      `No Chromium for the browser tests (${String(error).slice(0, 160)}): set CHROMIUM_PATH, install Debian's ` +
        "chromium (apt-get install chromium), or run npm install so that @sparticuz/chromium's browser is present.",
      { cause: error },
    );
  }
}
