import { DomainError } from '../../src/domain/errors.js';

/** The DomainError a use case refused with; fails the test when it succeeded or threw anything else. */
export async function refusal(promise: Promise<unknown>): Promise<DomainError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a refusal (DomainError), but the call succeeded');
}
