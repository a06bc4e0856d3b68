import { DomainError } from '../domain/errors.js';
import type { Principal, Scope } from '../domain/calendar.js';

export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.includes(scope)) {
    throw new DomainError('FORBIDDEN', `This principal lacks the ${scope} scope.`, { requiredScope: scope });
  }
}

export function requireWriter(principal: Principal, scope: Scope = 'bookings:write'): void {
  requireScope(principal, scope);
  if (principal.writePolicy === 'readonly') {
    throw new DomainError('FORBIDDEN', 'This principal is read-only.', {
      writePolicy: principal.writePolicy,
    });
  }
}
