/** Where the organisation's OpenID Connect provider sends a person back (its registered redirect URI's path). */
export const PROVIDER_CALLBACK_PATH = '/login/oidc/callback';
