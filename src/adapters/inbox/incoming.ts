import { z } from 'zod';
import type { IncomingMessage } from '../../app/inbox/ingest.js';
import { DomainError } from '../../domain/errors.js';
import { parseInstant } from '../../domain/time/instant.js';
import { parseEml } from './mail-parse.js';
import { isPlain, readableText } from './mail-text.js';
import { sanitizeMailHtml, textOfMailHtml } from './sanitize-mail.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Where mail comes from when the caller does not say. */
export const DEFAULT_PROVIDER = 'AGENTBUS';
export const DEFAULT_CHANNEL = 'EMAIL';

const label = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, _ . -');
const plain = (max: number) =>
  z.string().max(max).refine(isPlain, 'no control, invisible or unpaired surrogate characters');
const id = plain(1000).pipe(z.string().trim().min(1));
const short = plain(1000).nullable().optional();

/** The JSON an ingesting system posts: one message, its bodies and threading keys. */
export const jsonMessage = z.strictObject({
  provider: label.optional(),
  channel: label.optional(),
  external_message_id: id,
  external_conversation_id: id.nullable().optional(),
  message_id: short,
  in_reply_to: short,
  references: z.array(plain(1000)).max(100).optional(),
  subject: z.string().max(1000).nullable().optional(),
  from: short,
  cc: z.array(plain(1000)).max(200).optional(),
  received_at: z.string().max(64),
  text_body: z.string().max(5_000_000).optional(),
  html_body: z.string().max(5_000_000).nullable().optional(),
});

function invalid(path: readonly PropertyKey[], message: string): never {
  const field = path.map(String).join('.') || '(body)';
  throw new DomainError('INVALID_ARGUMENTS', `${field}: ${message}`, { field });
}

function labelOf(value: string, field: string): string {
  const parsed = label.safeParse(value);
  return parsed.success ? parsed.data : invalid([field], parsed.error.issues[0]!.message);
}

/** A posted JSON message, checked field by field, its HTML sanitized before anything keeps it. */
export function incomingFromJson(body: unknown, raw: Uint8Array): IncomingMessage {
  const parsed = jsonMessage.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    invalid(
      issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path,
      issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message,
    );
  }
  const m = parsed.data;
  const html = m.html_body ? sanitizeMailHtml(readableText(m.html_body)) : null;
  return {
    provider: m.provider ?? DEFAULT_PROVIDER,
    channel: m.channel ?? DEFAULT_CHANNEL,
    externalId: m.external_message_id,
    externalConversationId: m.external_conversation_id ?? null,
    rfcMessageId: m.message_id ?? null,
    inReplyTo: m.in_reply_to ?? null,
    references: m.references ?? [],
    subject: m.subject ? readableText(m.subject) : null,
    from: m.from ?? null,
    cc: m.cc ?? [],
    receivedAt: parseInstant(m.received_at, 'received_at'),
    textBody: m.text_body
      ? readableText(m.text_body)
      : m.html_body
        ? textOfMailHtml(readableText(m.html_body))
        : '',
    htmlSanitized: html,
    raw,
  };
}

/**
 * An .eml file: threaded by its own headers; its external id is its Message-ID unless one is
 * given; received at its Date (else `fallbackTime`).
 */
export async function incomingFromEml(
  raw: Buffer,
  where: { provider?: string | undefined; channel?: string | undefined; externalId?: string | undefined },
  fallbackTime: number,
): Promise<IncomingMessage> {
  let mail: Awaited<ReturnType<typeof parseEml>>;
  try {
    mail = await parseEml(raw);
  } catch {
    // mailparser's own limits (header count, MIME parts) and broken structure: the sender's fault.
    invalid(['(body)'], 'the mail could not be read as MIME');
  }
  const externalId = where.externalId ?? mail.messageId;
  if (!externalId || !isPlain(externalId))
    invalid(['external_message_id'], 'the mail has no usable Message-ID: give one');
  const header = (v: string | null) => (v === null ? null : readableText(v));
  return {
    provider: labelOf(where.provider ?? DEFAULT_PROVIDER, 'provider'),
    channel: labelOf(where.channel ?? DEFAULT_CHANNEL, 'channel'),
    externalId,
    externalConversationId: null,
    rfcMessageId: header(mail.messageId),
    inReplyTo: header(mail.inReplyTo),
    references: mail.references.map(readableText),
    subject: header(mail.subject),
    from: header(mail.from),
    cc: mail.cc.map(readableText),
    // A Date from the future (or before 1970) is the sender's word only: the import time stands instead.
    receivedAt:
      mail.date !== null && mail.date >= 0 && mail.date <= fallbackTime + DAY_MS ? mail.date : fallbackTime,
    textBody: readableText(mail.text),
    htmlSanitized: mail.html === null ? null : sanitizeMailHtml(readableText(mail.html)),
    raw,
  };
}
