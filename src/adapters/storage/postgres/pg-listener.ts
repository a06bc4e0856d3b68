import pg from 'pg';

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;
/** A listening connection says nothing while nobody notifies: asked this often whether it still answers… */
const HEARTBEAT_MS = 10_000;
/** …and given up when it does not within this (a cut the kernel has not noticed, a stalled server). */
const HEARTBEAT_TIMEOUT_MS = 5_000;

export interface PgListenerOptions {
  readonly connectionString: string;
  readonly channels: readonly string[];
  /** What the connection is called in pg_stat_activity. */
  readonly applicationName: string;
  /** A notification on one of the channels (a handler that throws is ignored, never fatal). */
  readonly onNotification: (channel: string, payload: string) => void;
  /** Listening (again, when `again`): whatever was notified while nobody listened is unknown. */
  readonly onListening?: (again: boolean) => void;
  /** The connection was lost or could not be made; it is being made again. */
  readonly onLost?: (reason: string) => void;
}

/**
 * One connection LISTENing on some channels that outlives the database: an error or end of the
 * connection (a restart, a fail-over, a cut) is never thrown at the process; the connection is made
 * again with a growing pause (0.25 s to 5 s), and `onListening(true)` tells its owner to forget
 * what it may have missed. A connection that dies silently (no reset ever arrives) is found by a
 * heartbeat within 15 s. The caches and buses of every instance listen through one of these.
 */
export class PgListener {
  private client: pg.Client | null = null;
  private closed = false;
  private everListened = false;
  private retryMs = FIRST_RETRY_MS;
  private timer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;

  private constructor(private readonly options: PgListenerOptions) {}

  /** Resolves after the first attempt, listening or not: a failed one is retried in the background. */
  static async start(options: PgListenerOptions): Promise<PgListener> {
    const listener = new PgListener(options);
    await listener.connect();
    return listener;
  }

  get listening(): boolean {
    return this.client !== null;
  }

  private async connect(): Promise<void> {
    this.timer = null;
    const client = new pg.Client({
      connectionString: this.options.connectionString,
      application_name: this.options.applicationName,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      query_timeout: HEARTBEAT_TIMEOUT_MS,
    });
    client.on('notification', (message) => {
      if (!message.payload || !this.options.channels.includes(message.channel)) return;
      try {
        this.options.onNotification(message.channel, message.payload);
      } catch {
        // A payload nobody understands (someone else's NOTIFY on the channel) changes nothing.
      }
    });
    let lost = false;
    const lose = (reason: string) => {
      if (lost) return;
      lost = true;
      if (this.client === client) {
        this.client = null;
        this.stopHeartbeat();
      }
      endNow(client);
      if (this.closed) return;
      try {
        this.options.onLost?.(reason);
      } catch {
        // As above: never thrown at the process.
      }
      this.later();
    };
    client.on('error', (error) => lose(error.message));
    client.on('end', () => lose('the connection ended'));
    try {
      await client.connect();
      for (const channel of this.options.channels) await client.query(`LISTEN ${channel}`);
    } catch (error) {
      return lose(error instanceof Error ? error.message : String(error));
    }
    if (lost) return;
    if (this.closed) return void (await client.end().catch(() => undefined));
    this.client = client;
    this.retryMs = FIRST_RETRY_MS;
    const again = this.everListened;
    this.everListened = true;
    this.heartbeat = setInterval(() => {
      client
        .query('SELECT 1')
        .catch((error: unknown) => lose(`no answer to the heartbeat: ${String(error)}`));
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
    try {
      this.options.onListening?.(again);
    } catch {
      // The owner's own trouble: listening goes on.
    }
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  private later(): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => void this.connect(), this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(MAX_RETRY_MS, this.retryMs * 2);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.stopHeartbeat();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}

/**
 * Ends a connection, and drops its socket if the server does not take the goodbye within a
 * second (a stalled network would keep it open for the kernel's quarter of an hour).
 */
function endNow(client: pg.Client): void {
  const socket = (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream;
  const drop = setTimeout(() => socket?.destroy(), 1_000);
  drop.unref();
  client
    .end()
    .catch(() => undefined)
    .finally(() => clearTimeout(drop));
}
