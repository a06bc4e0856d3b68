import type {
  AuthenticationResponseJSON,
  AuthenticatorTransportFuture,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import { decodeClientDataJSON, isoBase64URL } from '@simplewebauthn/server/helpers';
import type { Passkey } from '../../domain/identity/passkey.js';
import type { PasskeyCeremonies } from '../../ports/passkeys.js';

const TIMEOUT_MS = 120_000;

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
        publicKey: isoBase64URL.fromBuffer(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports ?? [],
      };
    }),

  async signInOptions(rp) {
    const options = await generateAuthenticationOptions({
      rpID: rp.id,
      timeout: TIMEOUT_MS,
      userVerification: 'required',
      allowCredentials: [],
    });
    return { options, challenge: options.challenge };
  },

  claimsOf(response) {
    try {
      const answer = response as AuthenticationResponseJSON;
      if (typeof answer.id !== 'string' || !isoBase64URL.isBase64URL(answer.id) || answer.id.length > 1400)
        return null;
      const { challenge } = decodeClientDataJSON(answer.response.clientDataJSON);
      return typeof challenge === 'string' && challenge.length <= 200
        ? { credentialId: answer.id, challenge }
        : null;
    } catch {
      return null;
    }
  },

  verifySignIn: (rp, response, challenge, passkey: Passkey) =>
    orNull(async () => {
      const result = await verifyAuthenticationResponse({
        response: response as AuthenticationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
        credential: {
          id: passkey.id,
          publicKey: isoBase64URL.toBuffer(passkey.publicKey),
          counter: passkey.counter,
          transports: passkey.transports as AuthenticatorTransportFuture[],
        },
      });
      return result.verified ? { counter: result.authenticationInfo.newCounter } : null;
    }),
};
