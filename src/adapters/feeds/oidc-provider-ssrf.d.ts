// oidc-provider's SSRF guard for outgoing requests (the one that protects Client ID Metadata
// Document fetches), reused for calendar feeds. The package publishes no types for it.
declare module 'oidc-provider/lib/helpers/fetch_request.js' {
  /** Whether an IPv4 or IPv6 address is private, loopback, link-local or otherwise special-use. */
  export function isSpecialUseIP(address: string): boolean;
  /** Makes an undici dispatcher destroy every socket connected to a special-use address. */
  export function applySSRFProtection<T extends object>(dispatcher: T): T;
}
