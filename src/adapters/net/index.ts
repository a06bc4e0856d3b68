// The outbound guard: every request made on someone's behalf goes through it.
export { outboundFetch, refusedHost } from './outbound-guard.js';
export type { OutboundFetch } from './outbound-guard.js';
