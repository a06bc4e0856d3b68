import { DomainError } from '../../domain/errors.js';
import { checkNewPassword } from '../../domain/identity/identity.js';
import type { AppDeps } from '../deps.js';
import { endAgentConnections } from './people.js';
import type { SignedIn } from './sessions.js';
import { isPasswordOf } from './sessions.js';

export interface PasswordChange {
  readonly current: string;
  readonly next: string;
  readonly repeated: string;
  /** End the person's agent tokens and connected apps too (the page's default). */
  readonly endConnections: boolean;
}

/**
 * A signed-in person changes their own password: only with the current one, in one transaction
 * with its consequences — every other session of theirs ends (this one stays), and unless they
 * untick it, every agent token and connected app of theirs is revoked, since whoever knew the old
 * password may have made them. Returns what was ended.
 */
export async function changeOwnPassword(deps: AppDeps, signed: SignedIn, change: PasswordChange) {
  if (signed.person.passwordHash === null)
    throw new DomainError(
      'INVALID_STATE',
      'You sign in without a password here; there is none to change.',
      {},
    );
  if (!(await isPasswordOf(deps, signed.person.id, change.current)))
    throw new DomainError('INVALID_ARGUMENTS', 'current: that is not your current password', {
      field: 'current',
    });
  checkNewPassword(change.next);
  if (change.next !== change.repeated)
    throw new DomainError('INVALID_ARGUMENTS', 'repeated: the two new passwords differ', {
      field: 'repeated',
    });
  const passwordHash = await deps.credentials.hashPassword(change.next);
  const now = deps.clock.now();
  return deps.store.write(async (tx) => {
    const person = await tx.people.getPerson(signed.person.id);
    if (!person || person.disabledAt !== null)
      throw new DomainError('FORBIDDEN', 'This account is disabled.', {});
    await tx.people.updatePerson({ ...person, passwordHash });
    const sessions = await tx.sessions.deleteSessionsOf(person.id, signed.session.idHash);
    const agents = change.endConnections
      ? await endAgentConnections(tx, person, now)
      : { tokens: 0, connections: 0 };
    return { sessions, ...agents };
  });
}
