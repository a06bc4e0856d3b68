import type { Instant } from '../time/instant.js';
import type { Role, Scope, WritePolicy } from './identity.js';

/**
 * An agent host a person let in through OAuth: one grant, for one client, with the scopes
 * and the write policy the person chose on the consent page. Revoking it ends every token of
 * the grant.
 */
export interface OAuthConnection {
  /** The authorization server's grant id; every access token of the grant names it. */
  readonly grantId: string;
  readonly tenantId: string;
  readonly personId: string;
  readonly clientId: string;
  /** What the client calls itself (unverified), or its metadata document's origin. */
  readonly clientName: string;
  readonly redirectHost: string;
  readonly scopes: readonly Scope[];
  readonly writePolicy: WritePolicy;
  readonly createdAt: Instant;
  readonly revokedAt: Instant | null;
  readonly lastUsedAt: Instant | null;
}

/** Each scope as the consent page says it. */
export const SCOPE_WORDS: Readonly<Record<Scope, string>> = {
  read: 'See your calendars, free time, your bookings and approvals',
  draft: 'Hold time and ask you to approve bookings',
  write: 'Confirm and cancel bookings (still only as the write policy allows)',
  sensitive: 'Administer calendars and see customers’ email and phone',
};

export const POLICY_WORDS: Readonly<Record<WritePolicy, string>> = {
  readonly: 'Read only: it cannot confirm or cancel anything',
  draft: 'Ask me before every write: each confirmation or cancellation waits for my approval',
  attested: 'A registered host attests my approval',
  direct: 'Direct: it confirms and cancels without asking me',
};

/** What a person may let an OAuth connection do without a person in the loop. */
export function policiesOfRole(role: Role): readonly WritePolicy[] {
  return role === 'viewer' ? ['readonly'] : ['draft', 'readonly', 'direct'];
}

/** The policies a role may pick, the tenant's default first when the role may pick it (forms preselect the first). */
export function policiesOffered(role: Role, tenantDefault: WritePolicy): readonly WritePolicy[] {
  const allowed = policiesOfRole(role);
  return allowed.includes(tenantDefault)
    ? [tenantDefault, ...allowed.filter((p) => p !== tenantDefault)]
    : allowed;
}

/** How a redirect URI is shown on the consent page, or why it is refused at registration. */
export type RedirectCheck =
  | { readonly ok: true; readonly kind: 'loopback' | 'https' | 'app'; readonly host: string }
  | { readonly ok: false; readonly reason: string };

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** Schemes that run or read something in the browser itself, never an app's callback. */
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'vbscript:', 'data:', 'blob:', 'file:', 'about:']);
/**
 * Schemes whose job is to hand a URL to a web browser or another program (`microsoft-edge:https://…`
 * opens a website): the code would leave for wherever that URL points.
 */
const HANDOFF_SCHEMES = new Set([
  'microsoft-edge:',
  'microsoft-edge-holographic:',
  'googlechrome:',
  'googlechromes:',
  'x-safari-http:',
  'x-safari-https:',
  'firefox:',
  'firefox-focus:',
  'opera-http:',
  'opera-https:',
  'brave:',
  'intent:',
  'android-app:',
  'chrome:',
  'chrome-extension:',
  'view-source:',
  'jar:',
  'ftp:',
  'ws:',
  'wss:',
  'mailto:',
  'sms:',
  'tel:',
]);
/** A private-use scheme (RFC 8252 §7.1): letters, digits, + - . after a letter, e.g. cursor, vscode, com.example.app. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+.-]{1,62}:$/;

/**
 * The redirect policy of client registration: loopback http on any port, https anywhere, and
 * an application's own scheme (`cursor://`, `vscode://`…); never a fragment, a wildcard,
 * credentials in the URL, or a scheme that runs in the browser.
 */
export function checkRedirectUri(value: unknown): RedirectCheck {
  if (typeof value !== 'string' || value.length > 2000) return { ok: false, reason: 'not a URI' };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { ok: false, reason: 'not a URI' };
  }
  if (value.includes('#')) return { ok: false, reason: 'a fragment is not allowed' };
  if (url.username || url.password) return { ok: false, reason: 'credentials in the URI are not allowed' };
  if (value.includes('*')) return { ok: false, reason: 'wildcards are not allowed' };
  if (url.protocol === 'https:') {
    if (!url.hostname || LOOPBACK_HOSTS.has(url.hostname))
      return { ok: false, reason: 'https needs a real host name' };
    return { ok: true, kind: 'https', host: url.host };
  }
  if (url.protocol === 'http:') {
    return LOOPBACK_HOSTS.has(url.hostname)
      ? { ok: true, kind: 'loopback', host: url.host }
      : { ok: false, reason: 'plain http only to this machine (127.0.0.1, [::1] or localhost)' };
  }
  if (
    FORBIDDEN_SCHEMES.has(url.protocol) ||
    HANDOFF_SCHEMES.has(url.protocol) ||
    url.protocol.startsWith('web+') ||
    !PRIVATE_USE_SCHEME.test(url.protocol)
  )
    return { ok: false, reason: `the ${url.protocol.slice(0, -1)} scheme is not allowed` };
  // `myapp:https://evil.example/…`: a URL inside an app's URI is a hand-off, not a callback.
  const rest = value.slice(url.protocol.length).replace(/^\/\//, '');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(rest) || /^(https?|javascript|data|file|ftp|wss?):/i.test(rest))
    return { ok: false, reason: 'a URL inside an app’s callback is not allowed' };
  return { ok: true, kind: 'app', host: `${url.protocol}//${url.host}` };
}
