import { spawn } from 'node:child_process';
import { createServer } from 'node:https';
import { request } from 'node:http';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { onPath } from './net.js';

export interface TlsProxy {
  /** Which proxy runs: Caddy (and where from) or Node's own. */
  readonly source: string;
  stop(): Promise<void>;
}

/** Caddy from CADDY_PATH, else on PATH (Debian: apt-get install caddy), unless told to do without. */
export function findCaddy(): string | null {
  if (process.env.CADDY_PATH) return process.env.CADDY_PATH;
  if (process.env.HOLDFAST_TEST_NO_SYSTEM_CADDY) return null;
  return onPath('caddy');
}

/** Runs Caddy with this Caddyfile (its data kept in `dir`). */
export function startCaddy(binary: string, dir: string, caddyfile: string): TlsProxy {
  writeFileSync(join(dir, 'Caddyfile'), caddyfile);
  const child = spawn(binary, ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], {
    env: { ...process.env, HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir },
    stdio: 'ignore',
  });
  return {
    source: `Caddy at ${binary}`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * Where no Caddy can be had: a TLS-terminating proxy in Node that does what the recipe's
 * Caddy does for Holdfast (TLS, Host passed through, X-Forwarded-For and -Proto).
 */
export async function startNodeProxy(
  tls: { cert: string; key: string },
  port: number,
  backendPort: number,
): Promise<TlsProxy> {
  const proxy = createServer(tls, (req, res) => {
    const headers = {
      ...req.headers,
      'x-forwarded-for': req.socket.remoteAddress ?? '',
      'x-forwarded-proto': 'https',
    };
    const upstream = request(
      { host: '127.0.0.1', port: backendPort, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
  return {
    source: 'a TLS-terminating proxy in Node (no Caddy on this machine)',
    stop: () => new Promise((resolve) => proxy.close(() => resolve())),
  };
}
