import type { ReceiptFacts } from '../../domain/booking/receipt.js';
import type { SealedSigningKey } from './oauth.js';

/** A confirmed booking's receipt: its facts from the confirming transaction, signed once first read. */
export interface StoredReceipt {
  readonly facts: ReceiptFacts;
  /** The compact JWS, once signed; the same bytes are served from then on. */
  readonly jws: string | null;
}

/** Receipts of confirmed bookings and the keys that sign them (retired keys are kept: old receipts still verify). */
export interface ReceiptStore {
  /** Records a confirmation's receipt facts (a booking confirmed again, after a move, gets its own id). */
  insert(facts: ReceiptFacts): Promise<void>;
  /** The receipt of this booking in the tenant; null when it was never confirmed. */
  get(tenantId: string, bookingId: string): Promise<StoredReceipt | null>;
  /** Stores the signed receipt unless one was stored meanwhile; false then (read it again). */
  setSigned(tenantId: string, bookingId: string, jws: string): Promise<boolean>;
  /** Every receipt signing key, newest first. */
  keys(): Promise<SealedSigningKey[]>;
  /** Stores a new signing key. */
  addKey(key: SealedSigningKey): Promise<void>;
  /** Retires every key but `kid`: they sign no more, and stay published for verifying. */
  retireKeysExcept(kid: string, now: number): Promise<void>;
}
