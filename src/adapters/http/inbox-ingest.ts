import type { Ingested, IncomingMessage } from '../../app/inbox/ingest.js';
import { isDomainError } from '../../domain/errors.js';
import type { IngestToken } from '../../domain/inbox/inbox.js';
import { incomingFromEml, incomingFromJson } from '../inbox/index.js';
import type { PageApp } from './page-app.js';
import { readBody } from './bounded-body.js';

export interface InboxIngestOptions {
  readonly maxBodyBytes: number;
  /** Milliseconds the body may take to arrive. */
  readonly bodyTimeoutMs: number;
  now(): number;
  /** The live ingest token a bearer secret names; null: 401. */
  authenticate(secret: string): Promise<IngestToken | null>;
  ingest(token: IngestToken, message: IncomingMessage): Promise<Ingested>;
  /** The outcome of every call that got past authentication, for the audit trail. */
  record(token: IngestToken, outcome: { ok: boolean; code?: string; externalId?: string }): Promise<void>;
}

const failure = (code: string, message: string, details: Record<string, unknown> = {}) => ({
  success: false,
  data: null,
  error: { code, message, details },
});

/**
 * POST /api/inbox/messages: one message as JSON, or an .eml as message/rfc822, with an ingest
 * token. The same provider message twice is stored once (201 the first time, 200 after).
 */
export function mountInboxIngest(app: PageApp, options: InboxIngestOptions): void {
  app.post('/api/inbox/messages', async (c) => {
    // The token first, from the headers: nothing of a body is read for a caller nobody knows.
    const secret = /^Bearer ([\x21-\x7e]+)$/.exec(c.req.header('authorization') ?? '')?.[1];
    let token: IngestToken | null;
    try {
      token = secret ? await options.authenticate(secret) : null;
    } catch (error) {
      if (!isDomainError(error, 'UNAVAILABLE')) throw error;
      return c.json(failure('UNAVAILABLE', error.message, { ...error.details }), 503, {
        'Retry-After': String(Math.ceil(error.details.retryAfterMs / 1000)),
      });
    }
    if (!token)
      return c.json(failure('MCP_AUTH_INVALID', 'An ingest token (Bearer hf_ing_…) is required.'), 401, {
        'WWW-Authenticate': 'Bearer scope="inbox:ingest"',
      });
    const read = await readBody(c.req.raw, {
      maxBytes: options.maxBodyBytes,
      deadlineMs: options.bodyTimeoutMs,
    });
    if (read.kind !== 'read') {
      const code = read.kind === 'too_large' ? 'MCP_REQUEST_BODY_TOO_LARGE' : 'MCP_REQUEST_INVALID';
      await options.record(token, { ok: false, code });
      return read.kind === 'too_large'
        ? c.json(failure(code, `A message may be at most ${options.maxBodyBytes} bytes.`), 413)
        : read.kind === 'too_slow'
          ? c.json(failure(code, 'The message did not arrive in time.'), 408)
          : c.json(failure(code, 'The message could not be read.'), 400);
    }
    const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    try {
      const raw = read.bytes;
      let incoming: IncomingMessage;
      if (type === 'application/json') {
        let body: unknown;
        try {
          body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
        } catch {
          await options.record(token, { ok: false, code: 'MCP_REQUEST_INVALID' });
          return c.json(failure('MCP_REQUEST_INVALID', 'The body is not JSON.', { field: '(body)' }), 400);
        }
        incoming = await incomingFromJson(body, raw);
      } else if (type === 'message/rfc822') {
        const q = c.req.query();
        incoming = await incomingFromEml(
          Buffer.from(raw),
          { provider: q.provider, channel: q.channel, externalId: q.external_message_id },
          options.now(),
        );
      } else {
        await options.record(token, { ok: false, code: 'MCP_REQUEST_INVALID' });
        return c.json(failure('MCP_REQUEST_INVALID', 'Send application/json or message/rfc822.'), 415);
      }
      const { message, created } = await options.ingest(token, incoming);
      await options.record(token, { ok: true, externalId: message.externalId });
      return c.json(
        {
          success: true,
          data: {
            external_source_message_id: message.externalId,
            source_provider: message.provider,
            source_channel: message.channel,
            created,
          },
          error: null,
        },
        created ? 201 : 200,
      );
    } catch (error) {
      const code = isDomainError(error)
        ? error.code === 'INVALID_ARGUMENTS'
          ? 'MCP_REQUEST_INVALID'
          : error.code
        : 'MCP_INTERNAL_ERROR';
      await options.record(token, { ok: false, code });
      if (!isDomainError(error)) throw error;
      return c.json(failure(code, error.message, { ...error.details }), 400);
    }
  });
}
