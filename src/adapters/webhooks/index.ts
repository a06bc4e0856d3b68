/** Webhook delivery: signing, sealed secrets and the SSRF-guarded sender. */
export { httpWebhookSender } from './http-webhook-sender.js';
export type { SenderOptions } from './http-webhook-sender.js';
export { WebhookSecretBox } from './secret-box.js';
export { isSpecialUseAddress, refusedHost } from '../net/outbound-guard.js';
