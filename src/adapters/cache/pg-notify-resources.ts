import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from '../log/json-logger.js';
import { PgListener } from '../storage/postgres/pg-listener.js';

/**
 * Resource changes across instances: what one instance announces reaches the agents listening on
 * every other (each republishes it to its own listen streams). A lost listening connection is
 * logged and made again; what was announced meanwhile is not replayed — the agent's next read
 * still shows the change.
 */
export class PgNotifyResources {
  private readonly origin = randomUUID();
  private listener: PgListener | null = null;

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
    bridge.listener = await PgListener.start({
      connectionString,
      channels: [bridge.channel],
      applicationName: `holdfast resources ${schema}`,
      onNotification: (_channel, payload) => {
        const { origin, uri } = JSON.parse(payload) as { origin: unknown; uri: unknown };
        if (origin !== bridge.origin && typeof uri === 'string') deliver(uri);
      },
      onListening: (again) => {
        if (again) logger.warn('resource change listener restored', {});
      },
      onLost: (reason) => logger.warn('resource change listener lost', { error: reason }),
    });
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
    await this.listener?.close();
  }
}
