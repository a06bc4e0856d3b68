import { describe, expect, it } from 'vitest';
import { providerEmail } from '../../src/domain/identity/provider-login.js';

const of = (claims: Record<string, unknown>) =>
  providerEmail({ issuer: 'https://idp', subject: 's', claims });

describe('the email a provider vouches for', () => {
  it('is the verified email, lower-cased and trimmed', () => {
    expect(of({ email: ' Ana@Acme.Example ', email_verified: true })).toEqual({
      ok: true,
      email: 'ana@acme.example',
    });
    expect(of({ email: 'ana@acme.example', email_verified: 'true' })).toEqual({
      ok: true,
      email: 'ana@acme.example',
    });
    // Entra ID: no email_verified, but the domain owner verified it.
    expect(of({ email: 'ana@acme.example', xms_edov: true })).toEqual({
      ok: true,
      email: 'ana@acme.example',
    });
  });

  it('is nobody when unverified, unsaid, or not an email', () => {
    for (const claims of [
      { email: 'ana@acme.example', email_verified: false },
      { email: 'ana@acme.example' },
      { email: 'ana@acme.example', email_verified: 1 },
      { email: 'ana@acme.example', xms_edov: 'true', email_verified: 'yes' },
    ])
      expect(of(claims)).toEqual({ ok: false, reason: 'email_unverified' });
    for (const claims of [
      {},
      { email: 42, email_verified: true },
      { email: 'not-an-email', email_verified: true },
    ])
      expect(of(claims)).toEqual({ ok: false, reason: 'no_email' });
    expect(of({ email: `${'a'.repeat(320)}@x.example`, email_verified: true })).toEqual({
      ok: false,
      reason: 'no_email',
    });
  });
});
