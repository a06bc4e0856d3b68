import { spawn } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { onPath } from './net.js';
import { runProcess } from './spawn-server.js';
import { chromium } from 'playwright-core';

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

export interface BrowserChoice {
  readonly executablePath: string;
  readonly source: string;
  readonly env?: Record<string, string>;
}

/** Whether the binary needs shared libraries this machine does not have (by `ldd`). */
async function missingLibraries(binary: string): Promise<boolean> {
  const ldd = await runProcess('ldd', [binary]);
  return ldd.status !== 0 || ldd.stdout.includes('not found');
}

/** Unpacks a .tar.br archive with Node's brotli and the system's tar. */
async function untarBrotli(archive: string, into: string): Promise<void> {
  mkdirSync(into, { recursive: true });
  const tar = spawn('tar', ['-x', '-C', into], { stdio: ['pipe', 'ignore', 'inherit'] });
  const exited = new Promise<void>((resolve, reject) =>
    tar.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tar exited with ${code}`)))),
  );
  await pipeline(createReadStream(archive), createBrotliDecompress(), tar.stdin);
  await exited;
}

/**
 * The Chromium that @sparticuz/chromium ships inside its npm package. On a machine without
 * Chromium's shared libraries, the Amazon Linux 2023 libraries it also ships are unpacked
 * and put on the browser's LD_LIBRARY_PATH.
 */
async function packagedChromium(): Promise<BrowserChoice> {
  const { default: packaged } = await import('@sparticuz/chromium');
  const executablePath = await packaged.executablePath();
  if (!(await missingLibraries(executablePath))) return { executablePath, source: '@sparticuz/chromium' };
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
 * Chromium shipped in an npm package. Never downloads anything. If none works, one clear line
 * names the options.
 */
export async function chooseBrowser(env: NodeJS.ProcessEnv = process.env): Promise<BrowserChoice> {
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

async function launch(): Promise<Browser> {
  const choice = await chooseBrowser();
  return chromium.launch({
    executablePath: choice.executablePath,
    args: FLAGS,
    env: { ...process.env, ...choice.env } as Record<string, string>,
  });
}

let shared: Promise<Browser> | null = null;

/**
 * One Chromium per test worker, shared by the files it runs (a launch costs about a second of
 * CPU). A file opens contexts of its own and closes them with releaseBrowser; Playwright ends
 * the browser with the worker.
 */
export function launchBrowser(): Promise<Browser> {
  shared ??= launch().then((browser) => {
    browser.on('disconnected', () => (shared = null));
    return browser;
  });
  return shared;
}

/** Closes every context a file opened (its pages and cookies go with them); the browser stays for the next file. */
export async function releaseBrowser(browser: Browser | undefined): Promise<void> {
  await Promise.all(browser?.contexts().map((context) => context.close()) ?? []);
}
