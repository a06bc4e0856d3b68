import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Clock } from '../../ports/clock.js';
import type { Store } from '../../ports/store/index.js';

/**
 * A registered client nobody connects within a day is forgotten: registration is open to
 * anyone, so unused registrations must not pile up. A connection keeps its client for good.
 */
export const UNCONNECTED_CLIENT_TTL_S = 24 * 60 * 60;

/**
 * oidc-provider's storage over Holdfast's store: one table for every model, on either engine,
 * so every instance on a database sees the same codes, refresh tokens, clients and grants.
 */
export function storeAdapter(store: Store, clock: Clock): new (name: string) => Adapter {
  return class StoreAdapter implements Adapter {
    constructor(private readonly kind: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      await store.writeOne((tx) =>
        tx.oauth.upsert({
          kind: this.kind,
          id,
          payload: JSON.stringify(payload),
          grantId: payload.grantId ?? null,
          uid: payload.uid ?? null,
          userCode: payload.userCode ?? null,
          expiresAt: expiresIn
            ? clock.now() + expiresIn * 1000
            : this.kind === 'Client'
              ? clock.now() + UNCONNECTED_CLIENT_TTL_S * 1000
              : null,
          consumedAt: null,
        }),
      );
    }

    private async loaded(find: Promise<{ payload: string; consumedAt: number | null } | null>) {
      const record = await find;
      if (!record) return undefined;
      const payload = JSON.parse(record.payload) as AdapterPayload;
      return record.consumedAt === null
        ? payload
        : { ...payload, consumed: Math.floor(record.consumedAt / 1000) };
    }

    find(id: string): Promise<AdapterPayload | undefined> {
      return this.loaded(store.readOne((tx) => tx.oauth.find(this.kind, id, clock.now())));
    }

    findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return this.loaded(store.readOne((tx) => tx.oauth.findByUid(this.kind, uid, clock.now())));
    }

    findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return this.loaded(store.readOne((tx) => tx.oauth.findByUserCode(this.kind, userCode, clock.now())));
    }

    async consume(id: string): Promise<void> {
      await store.writeOne((tx) => tx.oauth.consume(this.kind, id, clock.now()));
    }

    async destroy(id: string): Promise<void> {
      await store.writeOne((tx) => tx.oauth.destroy(this.kind, id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await store.write((tx) => tx.oauth.revokeGrant(grantId, clock.now()));
    }
  };
}
