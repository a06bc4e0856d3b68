import { caldavClient, caldavEvents } from '../../adapters/caldav/index.js';
import { WebhookSecretBox } from '../../adapters/webhooks/index.js';
import type { CaldavKit } from '../../ports/caldav.js';
import type { Runtime } from './compose.js';

/** CalDAV passwords are sealed under their own key, derived from the audit key kept outside the database. */
export const CALDAV_SECRET_PURPOSE = 'caldav-passwords';

/** The client, the event helpers and the password box: loaded on the first sync or CLI command that needs them. */
export async function loadCaldavKit(runtime: Runtime, allowPrivate: boolean): Promise<CaldavKit> {
  const [client, events] = await Promise.all([caldavClient({ allowPrivate }), caldavEvents()]);
  return { client, events, secrets: new WebhookSecretBox(runtime.auditKey.derive(CALDAV_SECRET_PURPOSE)) };
}
