// OAuth's door: token verification (local and external issuers), signing keys and the endpoints'
// face for Holdfast's own pages. The authorization server (oidc-provider) and the sign-in relying
// party (openid-client) load only when configured.
export { accessTokenVerifier } from './access-token-verifier.js';
export { authorizationEndpoints } from './endpoints.js';
export type { AuthorizationEndpoints } from './endpoints.js';
export { renderOAuthError } from './error-page.js';
export { externalTokenVerifier } from './external-token-verifier.js';
export type { ExternalIssuer } from './external-token-verifier.js';
export type { LoginRelyingParty } from './login-relying-party.js';
export { loadSigningKeys, publicKeys, rotateSigningKeys } from './signing-keys.js';

/**
 * oidc-provider prints "Unsupported runtime" on every Node.js it does not list, once, as it loads
 * (Node 20 among them, where it works and the suite passes). Holdfast states the Node.js lines it
 * supports in its own words at start (main/runtime/node-support.ts), so that one line is dropped.
 */
export async function loadAuthorizationServer() {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).includes('oidc-provider WARNING: Unsupported runtime')) warn(...args);
  };
  try {
    return await import('./authorization-server.js');
  } finally {
    console.warn = warn;
  }
}
export const loadLoginRelyingParty = () => import('./login-relying-party.js');
