import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { RunningServer } from './spawn-server.js';

/** Where the console's screenshots go (a test artifact; gitignored). */
export const CONSOLE_SHOTS = join(process.cwd(), '.artifacts', 'console');

/** Signs the spawned server's person in through the login form and lands on `path`. */
export async function signInToConsole(
  page: Page,
  server: RunningServer,
  path = '/console',
  person: { email: string; password: string } = server.agent,
): Promise<void> {
  await page.goto(new URL(path, server.url).href);
  await page.fill('input[name=email]', person.email);
  await page.fill('input[name=password]', person.password);
  await page.click('form[action="/login"] button[type=submit]');
  await page.waitForURL((url) => url.pathname.startsWith('/console'));
}

/**
 * axe on the page as it is (no serious or critical violation), then screenshots at desktop and
 * 360 px; at 360 px nothing may overflow sideways.
 */
export async function auditConsolePage(page: Page, name: string): Promise<void> {
  mkdirSync(CONSOLE_SHOTS, { recursive: true });
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(
    serious.map((v) => `${v.id}: ${v.help}`),
    name,
  ).toEqual([]);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: join(CONSOLE_SHOTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize({ width: 360, height: 740 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow, `${name} overflows at 360 px by ${overflow} px`).toBeLessThanOrEqual(0);
  await page.screenshot({ path: join(CONSOLE_SHOTS, `${name}-360.png`), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 900 });
}
