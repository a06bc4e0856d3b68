import { createHmac } from 'node:crypto';

/** `whsec_` + base64 of the key bytes (Standard Webhooks). */
export const SECRET_PREFIX = 'whsec_';

/**
 * `webhook-signature` of Standard Webhooks: `v1,` + base64 HMAC-SHA256, under the secret's key
 * bytes, of `id.timestamp.body`.
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}
