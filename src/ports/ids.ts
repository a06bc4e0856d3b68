/** Fresh identifiers; unguessable where they act as capabilities. */
export interface Ids {
  /** An unguessable id for a booking, calendar or operation. */
  newId(prefix: 'bk' | 'cal' | 'op' | 'usr' | 'tok' | 'host'): string;
  /** A short human code such as "HF-7K3Q-9PXA". */
  newReference(): string;
  /** A random RFC 9562 UUID (approval ids). */
  newUuid(): string;
}
