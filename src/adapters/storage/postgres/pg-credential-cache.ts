import pg from 'pg';
import type { Credential } from '../../../ports/store/index.js';
import type { Instant } from '../../../domain/time/instant.js';

/** Migration 22's triggers NOTIFY here, with the schema of the table that changed as payload. */
export const CREDENTIALS_CHANNEL = 'holdfast_credentials';

const MAX_ENTRIES = 10_000;
const RECONNECT_MS = 1_000;

/**
 * Every agent call looks up its bearer token with the person and tenant behind it; on PostgreSQL
 * that is a round trip per call beside the call's own statement. This keeps the answers of one
 * server, and forgets all of them the moment any token, person or tenant row of the schema changes
 * — whichever process changed it (another instance, the CLI): the tables' triggers NOTIFY, this
 * LISTENs. While the listening connection is down nothing is kept, so a revocation is never
 * missed; a revocation reaches a running server in the time a NOTIFY takes.
 */
export class PgCredentialCache {
  private readonly entries = new Map<string, Credential>();
  /** Bumped by every forgetting: a lookup that began before one must not store what it read. */
  private generation = 0;
  private listener: pg.Client | null = null;
  private closed = false;

  private constructor(
    private readonly connectionString: string,
    private readonly schema: string,
  ) {}

  static async start(connectionString: string, schema: string): Promise<PgCredentialCache> {
    const cache = new PgCredentialCache(connectionString, schema);
    await cache.listen();
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
    if (found && this.listener && generation === this.generation) {
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

  /** Never throws: a server without its listener still answers, reading every credential. */
  private async listen(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.connectionString,
      application_name: `holdfast credentials ${this.schema}`,
    });
    client.on('notification', (message) => {
      if (message.channel === CREDENTIALS_CHANNEL && message.payload === this.schema) this.forget();
    });
    const lost = () => {
      if (this.listener !== client) return;
      this.listener = null;
      this.forget();
      client.end().catch(() => undefined);
      this.listenLater();
    };
    client.on('error', lost);
    client.on('end', lost);
    try {
      await client.connect();
      await client.query(`LISTEN ${CREDENTIALS_CHANNEL}`);
    } catch {
      await client.end().catch(() => undefined);
      return this.listenLater();
    }
    if (this.closed) return void (await client.end().catch(() => undefined));
    // Whatever changed while nobody listened is unknown: start empty.
    this.forget();
    this.listener = client;
  }

  private listenLater(): void {
    if (!this.closed) setTimeout(() => void this.listen(), RECONNECT_MS).unref();
  }

  /** Listening, so remembering (for tests and health). */
  get listening(): boolean {
    return this.listener !== null;
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.listener;
    this.listener = null;
    this.forget();
    await client?.end();
  }
}
