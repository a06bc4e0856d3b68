import type { Credential } from '../../../ports/store/index.js';
import type { Instant } from '../../../domain/time/instant.js';
import { PgListener } from './pg-listener.js';

/** Migration 22's triggers NOTIFY here, with the schema of the table that changed as payload. */
export const CREDENTIALS_CHANNEL = 'holdfast_credentials';

const MAX_ENTRIES = 10_000;

/**
 * Every agent call looks up its bearer token with the person and tenant behind it; on PostgreSQL
 * that is a round trip per call beside the call's own statement. This keeps the answers of one
 * server, and forgets all of them the moment any token, person or tenant row of the schema changes
 * — whichever process changed it (another instance, the CLI): the tables' triggers NOTIFY, this
 * LISTENs. While the listening connection is down nothing is kept, so a revocation is never
 * missed; a revocation reaches a running server in the time a NOTIFY takes (and should the
 * connection die silently, its heartbeat finds out within 15 s and everything is forgotten).
 */
export class PgCredentialCache {
  private readonly entries = new Map<string, Credential>();
  /** Bumped by every forgetting: a lookup that began before one must not store what it read. */
  private generation = 0;

  private constructor(private listener: PgListener | null = null) {}

  static async start(
    connectionString: string,
    schema: string,
    warn: (message: string, fields: Record<string, unknown>) => void = () => undefined,
  ): Promise<PgCredentialCache> {
    const cache = new PgCredentialCache();
    cache.listener = await PgListener.start({
      connectionString,
      channels: [CREDENTIALS_CHANNEL],
      applicationName: `holdfast credentials ${schema}`,
      onNotification: (_channel, payload) => {
        if (payload === schema) cache.forget();
      },
      // Whatever changed while nobody listened is unknown: start empty.
      onListening: (again) => {
        cache.forget();
        if (again) warn('credential listener restored', {});
      },
      onLost: (reason) => {
        cache.forget();
        warn('credential listener lost; every call reads its credential until it is back', { reason });
      },
    });
    return cache;
  }

  /** The credential for a secret hash: remembered, or read and remembered while listening. */
  async credentialOf(
    secretHash: string,
    read: (secretHash: string) => Promise<Credential | null>,
  ): Promise<Credential | null> {
    const known = this.entries.get(secretHash);
    if (known) return known;
    const generation = this.generation;
    const found = await read(secretHash);
    // Unknown secrets are not kept: guessing must not fill the memory.
    if (found && this.listening && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(secretHash, found);
    }
    return found;
  }

  /** A token's last-used time was written (no trigger fires for it): keep the copy in step. */
  touched(tokenId: string, now: Instant): void {
    for (const [hash, credential] of this.entries)
      if (credential.token.id === tokenId)
        this.entries.set(hash, { ...credential, token: { ...credential.token, lastUsedAt: now } });
  }

  private forget(): void {
    this.generation++;
    this.entries.clear();
  }

  /** Listening, so remembering (for tests and health). */
  get listening(): boolean {
    return this.listener?.listening ?? false;
  }

  async close(): Promise<void> {
    const listener = this.listener;
    this.listener = null;
    this.forget();
    await listener?.close();
  }
}
