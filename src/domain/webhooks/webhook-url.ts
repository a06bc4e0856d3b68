import { DomainError } from '../errors.js';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * A receiver URL a subscription may have: https, no credentials in it. Plain http only to a
 * loopback host and only when the server allows private receivers (tests, closed networks).
 * Where the name resolves is checked again at every delivery, by the connection itself.
 */
export function checkWebhookUrl(text: string, allowPrivate: boolean): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid(`${text.slice(0, 200)} is not a URL.`);
  }
  if (url.username !== '' || url.password !== '') throw invalid('A webhook URL must not carry credentials.');
  if (url.hash !== '') throw invalid('A webhook URL must not have a #fragment.');
  if (url.protocol === 'https:') return url.href;
  if (url.protocol === 'http:' && allowPrivate && LOOPBACK_HOSTS.has(url.hostname)) return url.href;
  throw invalid(
    url.protocol === 'http:'
      ? 'A webhook URL must be https (plain http only to a loopback host with --allow-private-webhooks).'
      : `A webhook URL must be https, not ${url.protocol.replace(':', '')}.`,
  );
}

const invalid = (message: string) => new DomainError('INVALID_ARGUMENTS', message, { field: 'url' });
