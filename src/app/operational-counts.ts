import type { AppDeps } from './deps.js';

/** Across every tenant, now: bookings held and not expired, approvals asked and not decided. */
export async function operationalCounts(
  deps: AppDeps,
): Promise<{ holdsActive: number; approvalsPending: number }> {
  const now = deps.clock.now();
  return deps.store.read(async (tx) => {
    let holdsActive = 0;
    let approvalsPending = 0;
    for (const tenant of await tx.tenants.listTenants()) {
      const held = await tx.bookings.list(tenant.id, { status: 'HELD', now, offset: 0, limit: 1 });
      holdsActive += held.total;
      approvalsPending += await tx.approvals.countOpen(tenant.id, now);
    }
    return { holdsActive, approvalsPending };
  });
}
