import { DomainError } from '../../domain/errors.js';
import type { Host } from '../../domain/identity/identity.js';
import type { AppDeps } from '../deps.js';
import { ensureTenant } from './people.js';

/** Registers a host that may attest approvals; its private key is in the answer once. */
export async function addHost(deps: AppDeps, tenantId: string, name: string) {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 60)
    throw new DomainError('INVALID_ARGUMENTS', 'name: 1-60 characters', { field: 'name' });
  const keys = deps.credentials.newSigningKeyPair();
  const host: Host = {
    id: deps.ids.newId('host'),
    tenantId,
    name: trimmed,
    publicKey: keys.publicKey,
    createdAt: deps.clock.now(),
    revokedAt: null,
  };
  await deps.store.write(async (tx) => {
    await ensureTenant(deps, tx, tenantId);
    await tx.hosts.insertHost(host);
  });
  return { host, privateKey: keys.privateKey };
}

export async function listHosts(deps: AppDeps, tenantId: string): Promise<Host[]> {
  return deps.store.read((tx) => tx.hosts.listHosts(tenantId));
}

export async function revokeHost(deps: AppDeps, tenantId: string, id: string): Promise<void> {
  const revoked = await deps.store.write((tx) => tx.hosts.revokeHost(tenantId, id, deps.clock.now()));
  if (!revoked) throw new DomainError('NOT_FOUND', `No live host ${id} in tenant ${tenantId}.`);
}
