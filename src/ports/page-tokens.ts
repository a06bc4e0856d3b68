/**
 * The one-time token in an approval page link. Derived from the approval id with a server
 * secret, so the same link can be shown again (a replayed request_approval) without the link
 * itself ever being stored: the store keeps only its digest, and spends it on the decision.
 */
export interface PageTokens {
  /** The approval's page token: the same for the same id every time, on every instance sharing the secret. */
  tokenFor(approvalId: string): string;
}
