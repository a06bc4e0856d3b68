import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { UsageError } from '../../config/usage-error.js';
import type { ServerConfig } from '../../config/config.js';
import { holdfastVersion } from '../../runtime/version.js';

type Print = (text: string) => void;

interface Step {
  readonly name: string;
  readonly ok: boolean;
  readonly lines: readonly string[];
}

/**
 * `holdfast probe URL --token T`: what an agent host would see of a Holdfast server, read-only —
 * health, the protected-resource metadata an OAuth host starts from, the protocol the official
 * client negotiates, the tools with their read/write hints, and one read (list_calendars).
 * Nothing is written (the reads leave their audit records). Exit 0 when every step passed.
 */
export async function probe(
  config: ServerConfig,
  print: Print,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  // The address as the argument, or else MCP_SERVER_URL (the server's origin or its /mcp).
  const base = serverBase(config.rest[0] ?? (env.MCP_SERVER_URL || undefined));
  // From the environment, a token stays out of the process list other local users can read.
  const token = config.options.token ?? (env.MCP_ACCESS_TOKEN || undefined);
  const steps: Step[] = [
    await step('health', async () => {
      const response = await fetch(new URL('/healthz', base), { signal: AbortSignal.timeout(5_000) });
      const body = (await response.json()) as { status?: string; version?: string };
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      return [`${body.status ?? '?'}, version ${body.version ?? '?'}`];
    }),
    await step('OAuth protected-resource metadata', async () => {
      const response = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', base), {
        signal: AbortSignal.timeout(5_000),
      });
      if (!response.ok) return [`none (HTTP ${response.status}): hosts need a token`];
      const meta = (await response.json()) as { resource?: string; authorization_servers?: string[] };
      return [
        `resource ${meta.resource ?? '?'}`,
        `authorization servers ${(meta.authorization_servers ?? []).join(', ') || 'none'}`,
      ];
    }),
  ];
  // As a 2026-07-28 host connects: server/discover first, initialize only if the server is older.
  const client = new Client(
    { name: 'holdfast-probe', version: holdfastVersion },
    { versionNegotiation: { mode: 'auto' } },
  );
  try {
    steps.push(
      await step('MCP connection', async () => {
        await client.connect(
          new StreamableHTTPClientTransport(new URL('/mcp', base), {
            requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
          }),
        );
        const server = client.getServerVersion();
        return [
          `${server?.name ?? '?'} ${server?.version ?? '?'}, protocol ${client.getNegotiatedProtocolVersion() ?? '?'} (${client.getProtocolEra() ?? '?'} era)`,
          `instructions: ${(client.getInstructions() ?? '').split('\n')[0] ?? ''}`,
        ];
      }),
    );
    if (steps.at(-1)!.ok) {
      steps.push(
        await step('tools', async () => {
          const { tools } = await client.listTools();
          const reads = tools.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name);
          const writes = tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name);
          return [
            `${tools.length} tools`,
            `read: ${reads.join(', ') || 'none'}`,
            `write: ${writes.join(', ') || 'none'}`,
          ];
        }),
        await step('one read (list_calendars)', async () => {
          const result = await client.callTool({ name: 'list_calendars', arguments: {} });
          const envelope = result.structuredContent as {
            ok?: boolean;
            data?: { calendars?: unknown[] };
            error?: { code: string };
          };
          if (!envelope?.ok) throw new Error(envelope?.error?.code ?? 'no envelope');
          return [`${envelope.data?.calendars?.length ?? 0} calendar(s) visible to this token`];
        }),
      );
    }
  } finally {
    await client.close().catch(() => undefined);
  }
  print(`holdfast probe ${base.href} (read-only)`);
  for (const s of steps) {
    print(`${s.ok ? 'ok  ' : 'FAIL'} ${s.name}`);
    for (const line of s.lines) print(`     ${line}`);
  }
  return steps.every((s) => s.ok) ? 0 : 1;
}

async function step(name: string, run: () => Promise<string[]>): Promise<Step> {
  try {
    return { name, ok: true, lines: await run() };
  } catch (error) {
    return {
      name,
      ok: false,
      lines: [error instanceof Error ? error.message.split('\n')[0]!.slice(0, 200) : String(error)],
    };
  }
}

/** The server's origin from `URL` or `URL/mcp`. */
function serverBase(given: string | undefined): URL {
  if (!given)
    throw new UsageError(
      'holdfast probe needs the server URL (or MCP_SERVER_URL), e.g. holdfast probe http://127.0.0.1:3000 --token hf_pat_…',
    );
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(`"${given}" is not a URL (http://host:port)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError('probe speaks http:// and https:// only');
  return new URL(url.origin);
}
