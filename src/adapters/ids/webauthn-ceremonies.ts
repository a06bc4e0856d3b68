import type {
  AuthenticationResponseJSON,
  AuthenticatorTransportFuture,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { Passkey } from '../../domain/identity/passkey.js';
import type { PasskeyCeremonies } from '../../ports/passkeys.js';

const TIMEOUT_MS = 120_000;

/** The library (and its ASN.1 and COSE code) loads at the first ceremony, not at start-up. */
const library = () => import('@simplewebauthn/server');

const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/** Whatever the answer, a failed check is "not verified", never an exception to the caller. */
async function orNull<T>(check: () => Promise<T>): Promise<T | null> {
  try {
    return await check();
  } catch {
    return null;
  }
}

/**
 * WebAuthn with @simplewebauthn/server: discoverable credentials (the person picks their
 * passkey, no email typed first), user verification required, no attestation asked for.
 */
export const webAuthnCeremonies: PasskeyCeremonies = {
  async registrationOptions(rp, user, existing) {
    const { generateRegistrationOptions } = await library();
    const options = await generateRegistrationOptions({
      rpName: rp.name,
      rpID: rp.id,
      userName: user.email,
      userDisplayName: user.displayName,
      userID: new TextEncoder().encode(user.id),
      timeout: TIMEOUT_MS,
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({
        id: p.id,
        transports: p.transports as AuthenticatorTransportFuture[],
      })),
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
    });
    return { options, challenge: options.challenge };
  },

  verifyRegistration: (rp, response, challenge) =>
    orNull(async () => {
      const { verifyRegistrationResponse } = await library();
      const result = await verifyRegistrationResponse({
        response: response as RegistrationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
      });
      if (!result.verified) return null;
      const { credential } = result.registrationInfo;
      return {
        id: credential.id,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: credential.transports ?? [],
      };
    }),

  async signInOptions(rp) {
    const { generateAuthenticationOptions } = await library();
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      timeout: TIMEOUT_MS,
      userVerification: 'required',
      allowCredentials: [],
    });
    return { options, challenge: options.challenge };
  },

  // Read before anything is verified, without the library: base64url of the id, JSON of clientDataJSON.
  claimsOf(response) {
    try {
      const answer = response as AuthenticationResponseJSON;
      if (typeof answer.id !== 'string' || !BASE64URL.test(answer.id) || answer.id.length > 1400) return null;
      const clientData = answer.response.clientDataJSON;
      if (typeof clientData !== 'string' || !BASE64URL.test(clientData)) return null;
      const { challenge } = JSON.parse(Buffer.from(clientData, 'base64url').toString('utf8')) as {
        challenge?: unknown;
      };
      return typeof challenge === 'string' && challenge.length <= 200
        ? { credentialId: answer.id, challenge }
        : null;
    } catch {
      return null;
    }
  },

  verifySignIn: (rp, response, challenge, passkey: Passkey) =>
    orNull(async () => {
      const { verifyAuthenticationResponse } = await library();
      const result = await verifyAuthenticationResponse({
        response: response as AuthenticationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
        credential: {
          id: passkey.id,
          publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
          counter: passkey.counter,
          transports: passkey.transports as AuthenticatorTransportFuture[],
        },
      });
      return result.verified ? { counter: result.authenticationInfo.newCounter } : null;
    }),
};
