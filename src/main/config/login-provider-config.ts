import { issuerUrl } from './external-auth-config.js';
import { UsageError } from './usage-error.js';

/** People sign in to the pages through the organisation's OpenID Connect provider (--login-issuer …). */
export interface LoginProviderConfig {
  readonly issuer: string;
  readonly clientId: string;
  /** HOLDFAST_LOGIN_CLIENT_SECRET (never a flag: argv is readable by every local user); null: a public client. */
  readonly clientSecret: string | null;
  /** The button's "Sign in with …"; the issuer's host by default. */
  readonly name: string;
}

/** The command-line values this reads; each has a HOLDFAST_LOGIN_* variable beside it. */
export interface LoginProviderFlags {
  readonly 'login-issuer'?: string;
  readonly 'login-client-id'?: string;
  readonly 'login-name'?: string;
}

const printable = (value: string, max: number) => /^[\x20-\x7e]+$/.test(value) && value.length <= max;

/**
 * --login-issuer with --login-client-id (and optionally --login-name, and the secret from the
 * environment). Null when no issuer is named; any of the others without one is a mistake.
 */
export function readLoginProvider(
  flags: LoginProviderFlags,
  env: NodeJS.ProcessEnv,
): LoginProviderConfig | null {
  const issuer = flags['login-issuer'] ?? env.HOLDFAST_LOGIN_ISSUER;
  const clientId = flags['login-client-id'] ?? env.HOLDFAST_LOGIN_CLIENT_ID;
  const name = flags['login-name'] ?? env.HOLDFAST_LOGIN_NAME;
  const secret = env.HOLDFAST_LOGIN_CLIENT_SECRET;
  if (issuer === undefined || issuer === '') {
    if (clientId !== undefined)
      throw new UsageError('--login-client-id needs --login-issuer (the identity provider)');
    if (name !== undefined) throw new UsageError('--login-name needs --login-issuer (the identity provider)');
    if (secret !== undefined && secret !== '')
      throw new UsageError('HOLDFAST_LOGIN_CLIENT_SECRET is set but --login-issuer is not');
    return null;
  }
  issuerUrl(issuer, '--login-issuer');
  if (clientId === undefined || clientId === '')
    throw new UsageError('--login-issuer needs --login-client-id (the client registered at the provider)');
  if (!/^[\x21-\x7e]{1,300}$/.test(clientId))
    throw new UsageError(`--login-client-id must be printable, without spaces, got "${clientId}"`);
  if (name !== undefined && (!printable(name, 60) || name.trim() === ''))
    throw new UsageError(`--login-name must be 1 to 60 printable characters, got "${name}"`);
  if (secret !== undefined && secret !== '' && !/^[\x21-\x7e]{1,1000}$/.test(secret))
    throw new UsageError('HOLDFAST_LOGIN_CLIENT_SECRET must be printable, without spaces');
  return {
    issuer,
    clientId,
    clientSecret: secret === undefined || secret === '' ? null : secret,
    name: name?.trim() ?? new URL(issuer).host,
  };
}
