import { DomainError } from '../domain/errors.js';
import type { Scope } from '../domain/calendar.js';
import type { Principal } from '../domain/identity/principal.js';

export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) {
    throw new DomainError('FORBIDDEN', `This connection lacks the ${scope} scope.`, { requiredScope: scope });
  }
}

/** A change: the scope, and a write policy other than read-only. */
export function requireWriter(principal: Principal, scope: Scope): void {
  requireScope(principal, scope);
  if (principal.writePolicy === 'readonly') {
    throw new DomainError('FORBIDDEN', 'This connection is read-only.', {
      writePolicy: principal.writePolicy,
    });
  }
}
