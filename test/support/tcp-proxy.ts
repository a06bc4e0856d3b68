import type { Socket } from 'node:net';
import { connect, createServer } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  /** The port clients connect to instead of the target's. */
  readonly port: number;
  /** Stops passing bytes either way, on every connection and every new one: a stalled network. */
  stall(): void;
  /** Passes bytes again (what was held back is delivered). */
  resume(): void;
  /** Resets every connection now (new ones still pass). */
  cut(): void;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of a server (PostgreSQL, say) that a test can stall or cut: the faults of
 * the network between an instance and its database, without touching either.
 */
export async function tcpProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let stalled = false;
  const server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      from.on('data', (chunk) => {
        if (!to.write(chunk)) from.pause();
      });
      to.on('drain', () => {
        if (!stalled) from.resume();
      });
      from.on('error', () => to.destroy());
      from.on('close', () => {
        to.destroy();
        pairs.delete(pair);
      });
    }
    if (stalled) for (const socket of pair) socket.pause();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    stall() {
      stalled = true;
      for (const pair of pairs) for (const socket of pair) socket.pause();
    },
    resume() {
      stalled = false;
      for (const pair of pairs) for (const socket of pair) socket.resume();
    },
    cut() {
      for (const pair of pairs) for (const socket of pair) socket.resetAndDestroy();
    },
    async close() {
      for (const pair of pairs) for (const socket of pair) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
