import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../log/json-logger.js';

/**
 * Resource changes across instances: what one instance announces reaches the agents listening on
 * every other (each republishes it to its own listen streams). A lost listening connection is
 * logged; the agent's next read still shows the change.
 */
export class PgNotifyResources {
  private readonly origin = randomUUID();
  private listener: pg.Client | null = null;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly channel: string,
    private readonly deliver: (uri: string) => void,
  ) {}

  static async start(
    pool: pg.Pool,
    connectionString: string,
    schema: string,
    deliver: (uri: string) => void,
    logger: Logger,
  ): Promise<PgNotifyResources> {
    const bridge = new PgNotifyResources(pool, `holdfast_resources_${schema}`, deliver);
    const client = new pg.Client({ connectionString });
    client.on('notification', (message) => {
      if (message.channel !== bridge.channel || !message.payload) return;
      const { origin, uri } = JSON.parse(message.payload) as { origin: string; uri: string };
      if (origin !== bridge.origin) deliver(uri);
    });
    client.on('error', (error) => logger.warn('resource change listener lost', { error: error.message }));
    await client.connect();
    await client.query(`LISTEN ${bridge.channel}`);
    bridge.listener = client;
    return bridge;
  }

  /** Announces locally at once, and to the other instances. */
  announce(uri: string): void {
    this.deliver(uri);
    this.pool
      .query('SELECT pg_notify($1, $2)', [this.channel, JSON.stringify({ origin: this.origin, uri })])
      .catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.listener?.end().catch(() => undefined);
  }
}
