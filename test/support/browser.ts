import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { CHROMIUM_FLAGS, chooseBrowser } from '../../scripts/chromium.mjs';

export { chooseBrowser } from '../../scripts/chromium.mjs';
export type { BrowserChoice } from '../../scripts/chromium.mjs';

async function launch(): Promise<Browser> {
  const choice = await chooseBrowser();
  return chromium.launch({
    executablePath: choice.executablePath,
    args: [...CHROMIUM_FLAGS],
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
