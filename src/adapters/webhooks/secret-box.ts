import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { WebhookSecrets } from '../../ports/webhook-delivery.js';
import { SECRET_PREFIX } from './webhook-signature.js';

/** A value sealed for something else does not open here. */
const AAD = Buffer.from('holdfast-webhook-secret/1');
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Signing secrets sealed with AES-256-GCM under a key derived from the audit key, which is
 * kept outside the database: a copy of the database alone cannot sign webhooks.
 */
export class WebhookSecretBox implements WebhookSecrets {
  constructor(private readonly key: Buffer) {}

  create(): { secret: string; sealed: string } {
    const secret = `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
    return { secret, sealed: this.seal(secret) };
  }

  seal(secret: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(AAD);
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
  }

  /** Throws when the value was tampered with or sealed under another key. */
  open(sealed: string): string {
    const raw = Buffer.from(sealed, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES)).setAAD(AAD);
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  }
}
