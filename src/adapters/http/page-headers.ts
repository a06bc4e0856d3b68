/**
 * Headers of every page a person sees outside the console (sign-in, setup, development payment
 * form): this site's stylesheet only, no scripts, no framing, no caching, and the one-time token in the URL not leaked as a referrer.
 */
export const PAGE_HEADERS = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  // same-origin, not no-referrer: browsers send "Origin: null" on the form POST otherwise; the token still never leaves the site.
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

/** The login and account pages: the same, plus this site's own scripts (the passkey buttons) and their fetches. */
export const SCRIPTED_PAGE_HEADERS = {
  ...PAGE_HEADERS,
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};
