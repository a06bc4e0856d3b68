// Ids, digests, secrets and WebAuthn ceremonies: everything random or hashed the app is given.
export { boundedDigest } from './bounded-digest.js';
export { jcsDigest } from './jcs-digest.js';
export { KeyedDigest } from './keyed-digest.js';
export { KeyedPageTokens } from './keyed-page-tokens.js';
export { nodeCredentials, scryptCredentials } from './node-credentials.js';
export { randomIds } from './random-ids.js';
export { webAuthnCeremonies } from './webauthn-ceremonies.js';
