import { createHash, createHmac } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { AuditEntry } from '../../ports/audit.js';

/** The smallest secret accepted as an audit key (32 characters of base64url is 192 bits). */
export const MIN_AUDIT_KEY_LENGTH = 32;

/**
 * The secret behind the audit trail, kept outside the database. Three keys are derived from
 * it, one per purpose: record MACs (the chain), preview digests of personal values, and
 * checkpoint MACs. Its fingerprint (`keyId`) is stored with each record; the key never is.
 */
export class AuditKey {
  readonly keyId: string;
  private readonly recordKey: Buffer;
  private readonly previewKey: Buffer;
  private readonly checkpointKey: Buffer;
  private readonly entryKey: Buffer;

  private readonly secret: string;

  constructor(secret: string) {
    const text = secret.trim();
    if (text.length < MIN_AUDIT_KEY_LENGTH)
      throw new Error(`The audit key must be at least ${MIN_AUDIT_KEY_LENGTH} characters long.`);
    this.secret = text;
    this.recordKey = this.derive('record');
    this.previewKey = this.derive('preview');
    this.checkpointKey = this.derive('checkpoint');
    this.entryKey = this.derive('entry');

    this.keyId = createHash('sha256').update(this.derive('key-id')).digest('hex').slice(0, 16);
  }

  /** A key for one purpose; the server's other secrets (approval page links) come from here too. */
  derive(purpose: string): Buffer {
    return createHmac('sha256', this.secret).update(`holdfast-audit:${purpose}`).digest();
  }

  /** Every field of an entry, in a fixed order, with the preview as stored text. Flat: never recurses. */
  private static fields(entry: AuditEntry): unknown[] {
    return [
      entry.at,
      entry.tenantId,
      entry.subject,
      entry.clientId,
      entry.transport,
      entry.tool,
      entry.kind,
      entry.outcome,
      entry.errorCode,
      entry.blockedReason,
      entry.argumentsDigest,
      entry.preview,
      entry.traceId,
      entry.operationId,
      entry.durationMs,
    ];
  }

  /** A sealed record's MAC: over its chain position, its predecessor and every field. */
  recordMac(seq: number, prevHash: string, entry: AuditEntry): string {
    const body = JSON.stringify(['holdfast-audit/2', this.keyId, seq, prevHash, ...AuditKey.fields(entry)]);
    return `hmac-sha256:${createHmac('sha256', this.recordKey).update(body).digest('hex')}`;
  }

  /** The MAC an entry carries while pending, so the sealer can tell it was written by Holdfast. */
  entryMac(entry: AuditEntry): string {
    const body = JSON.stringify(['holdfast-audit-entry/1', this.keyId, ...AuditKey.fields(entry)]);
    return `hmac-sha256:${createHmac('sha256', this.entryKey).update(body).digest('hex')}`;
  }

  /** A keyed digest of a personal value: matchable by whoever holds the key, not guessable by anyone else. */
  digest(value: unknown): string {
    const canonical = canonicalize(value) ?? 'null';
    return `hmac:${createHmac('sha256', this.previewKey).update(canonical).digest('hex').slice(0, 32)}`;
  }

  checkpointMac(fields: readonly (string | number)[]): string {
    const body = JSON.stringify(['holdfast-audit-checkpoint/1', ...fields]);
    return `hmac-sha256:${createHmac('sha256', this.checkpointKey).update(body).digest('hex')}`;
  }
}
