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

export const loadAuthorizationServer = () => import('./authorization-server.js');
export const loadLoginRelyingParty = () => import('./login-relying-party.js');
