import { createHmac } from 'node:crypto';
import type { PageTokens } from '../../ports/page-tokens.js';

/** HMAC-SHA256 of the approval id under a server secret (derived from the audit key, shared by every instance). */
export class KeyedPageTokens implements PageTokens {
  constructor(private readonly secret: Buffer) {}

  tokenFor(approvalId: string): string {
    return createHmac('sha256', this.secret).update(`approval-page:${approvalId}`).digest('base64url');
  }
}
