import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Record<string, unknown>;
}

interface OtlpJson {
  resourceSpans?: {
    scopeSpans?: {
      spans?: (Omit<ReceivedSpan, 'attributes'> & {
        attributes?: { key: string; value: Record<string, unknown> }[];
      })[];
    }[];
  }[];
}

/** An OTLP/HTTP JSON trace receiver on 127.0.0.1 (what a collector would be), keeping every span. */
export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const parsed = JSON.parse(body) as OtlpJson;
        for (const resource of parsed.resourceSpans ?? [])
          for (const scope of resource.scopeSpans ?? [])
            for (const span of scope.spans ?? [])
              spans.push({
                ...span,
                parentSpanId: span.parentSpanId ?? '',
                attributes: Object.fromEntries(
                  (span.attributes ?? []).map((a) => [a.key, Object.values(a.value)[0]]),
                ),
              });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
