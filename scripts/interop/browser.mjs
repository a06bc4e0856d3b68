// Headless Chromium playing the person in an OAuth flow: the same choice of browser as
// test/support/browser.ts and the same steps as test/support/oauth-consent.ts, in plain JS
// so that a driver process can use them without a TypeScript loader.
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress } from 'node:zlib';
import { chromium } from 'playwright-core';

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

async function untarBrotli(archive, into) {
  mkdirSync(into, { recursive: true });
  const tar = spawn('tar', ['-x', '-C', into], { stdio: ['pipe', 'ignore', 'inherit'] });
  const exited = new Promise((resolve, reject) =>
    tar.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tar exited with ${code}`)))),
  );
  await pipeline(createReadStream(archive), createBrotliDecompress(), tar.stdin);
  await exited;
}

/** CHROMIUM_PATH; else Debian's chromium; else the one in @sparticuz/chromium (with its libraries). */
async function chooseBrowser() {
  if (process.env.CHROMIUM_PATH) return { executablePath: process.env.CHROMIUM_PATH };
  if (existsSync('/usr/bin/chromium')) return { executablePath: '/usr/bin/chromium' };
  const { default: packaged } = await import('@sparticuz/chromium');
  const executablePath = await packaged.executablePath();
  const ldd = spawnSync('ldd', [executablePath], { encoding: 'utf8' });
  if (ldd.status === 0 && !ldd.stdout.includes('not found')) return { executablePath };
  const libs = join(tmpdir(), 'holdfast-chromium-libs');
  if (!existsSync(join(libs, 'lib'))) {
    const entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
    await untarBrotli(join(dirname(entry), '../../bin/al2023.tar.br'), libs);
  }
  return { executablePath, env: { LD_LIBRARY_PATH: join(libs, 'lib') } };
}

export async function launchBrowser() {
  const choice = await chooseBrowser();
  return chromium.launch({
    executablePath: choice.executablePath,
    args: FLAGS,
    env: { ...process.env, ...choice.env },
  });
}

/**
 * The person's side of an authorization request: open it, sign in, allow with the draft write
 * policy, and wait until the browser lands on the client's redirect URI.
 */
export async function personAllows(browser, authorizationUrl, person) {
  const url = new URL(authorizationUrl);
  const redirect = url.searchParams.get('redirect_uri');
  if (!redirect) throw new Error(`no redirect_uri in ${url.href}`);
  const page = await browser.newPage();
  try {
    await page.goto(url.href);
    if (new URL(page.url()).pathname === '/login') {
      await page.fill('input[name=email]', person.email);
      await page.fill('input[name=password]', person.password);
      await page.click('form[action="/login"] button[type=submit]');
    }
    await page.waitForSelector('#client-name');
    await page.check('input[name=writePolicy][value=draft]');
    await page.click('button[value=allow]');
    await page.waitForURL((landed) => landed.href.startsWith(redirect), { waitUntil: 'load' });
    return new URL(page.url());
  } finally {
    await page.close();
  }
}
