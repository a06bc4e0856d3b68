/**
 * Whether keys or metadata may be fetched from `value`: https, or http to this machine only (a
 * local identity provider in development and tests), since keys fetched in the clear could be swapped.
 */
export function isSafeKeyUrl(value: string): boolean {
  try {
    const url = new URL(value);
    if (url.protocol === 'https:') return true;
    return url.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(url.hostname);
  } catch {
    return false;
  }
}
