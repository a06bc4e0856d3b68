import type { ReceiptClaims } from '../../domain/booking/receipt.js';
import type { Clock } from '../../ports/clock.js';
import type { PublicJwk, ReceiptSigner } from '../../ports/receipt-signer.js';
import type { SealedSigningKey, Store } from '../../ports/store/index.js';
import type * as ReceiptKeys from './receipt-keys.js';

type KeysModule = typeof ReceiptKeys;
type Loaded = Awaited<ReturnType<KeysModule['prepareReceiptKeys']>>;

/** What the audit key derives the secret that seals receipt keys for. */
export const RECEIPT_KEY_PURPOSE = 'receipt-keys';

/** Which keys exist and which signs: when another instance or the CLI rotates, this changes. */
const fingerprint = (keys: readonly SealedSigningKey[]) =>
  keys.map((k) => `${k.kid}:${k.retiredAt === null ? 'active' : 'retired'}`).join(',');

/**
 * Signs with keys loaded on the first receipt asked for: an installation that never hands out a
 * receipt never loads JOSE nor its keys. Each use reads the key list (one small query; a receipt
 * is signed once), so a rotation anywhere takes effect at once on every instance.
 */
export class LazyReceiptSigner implements ReceiptSigner {
  private loaded: { fingerprint: string; keys: Promise<Loaded> } | null = null;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly secret: Buffer,
    readonly issuer: string,
  ) {}

  async sign(claims: ReceiptClaims): Promise<string> {
    const module = await import('./receipt-keys.js');
    return module.signReceipt(await this.keys(module), claims);
  }

  /** No receipt signed yet: no key, and an anonymous GET of the key set makes none. */
  async publicKeys(): Promise<{ keys: PublicJwk[] }> {
    if ((await this.store.read((tx) => tx.receipts.keys())).length === 0) return { keys: [] };
    return { keys: (await this.keys(await import('./receipt-keys.js'))).publicKeys };
  }

  private async keys(module: KeysModule): Promise<Loaded> {
    const sealed = await module.sealedReceiptKeys(this.store, this.clock, this.secret);
    const now = fingerprint(sealed);
    if (this.loaded?.fingerprint !== now) {
      const keys = module.prepareReceiptKeys(sealed, this.secret);
      // A failed load is not kept: the next receipt tries again.
      keys.catch(() => (this.loaded = null));
      this.loaded = { fingerprint: now, keys };
    }
    return this.loaded.keys;
  }
}
