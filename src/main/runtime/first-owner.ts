import { hasPeople, newSetupLink } from '../../app/identity/people.js';
import type { Runtime } from './compose.js';
import type { ServerConfig } from '../config/config.js';

/** Where a setup secret is opened: the public address's /setup page. */
export function setupUrl(runtime: Runtime, secret: string): string {
  return `${runtime.publicBaseUrl.replace(/\/+$/, '')}/setup/${secret}`;
}

/**
 * A fresh install has no password anywhere: the first owner is created from a one-time link
 * printed on the terminal that started the server (stored as a digest, 24 hours, single use).
 */
export async function firstOwnerLink(runtime: Runtime, config: ServerConfig): Promise<string | null> {
  if (await hasPeople(runtime.deps, config.tenantId)) return null;
  const { secret } = await newSetupLink(runtime.deps, config.tenantId, null);
  const url = setupUrl(runtime, secret);
  process.stderr.write(
    `\nHoldfast has no owner yet. Open this link within 24 hours to create the owner account (it works once):\n  ${url}\n\n`,
  );
  return url;
}
