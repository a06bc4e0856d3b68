/** Fresh identifiers; unguessable where they act as capabilities. */
export interface Ids {
  /** An unguessable id for a booking, calendar or operation. */
  newId(prefix: IdPrefix): string;
  /** A short human code such as "HF-7K3Q-9PXA". */
  newReference(): string;
  /** A random RFC 9562 UUID (approval ids). */
  newUuid(): string;
}

/** bk booking, cal calendar, op operation, usr person, tok token, host host; the inbox's: msg, conv, batch, task, tr, read, ing; feeds: feed (a published link), sub (a subscription); rule, ser (series), chg (change set), wl (waitlist entry), cdv (CalDAV connection). */
export type IdPrefix =
  | 'bk'
  | 'cal'
  | 'op'
  | 'usr'
  | 'tok'
  | 'host'
  | 'msg'
  | 'conv'
  | 'batch'
  | 'task'
  | 'tr'
  | 'read'
  | 'ing'
  | 'feed'
  | 'sub'
  | 'rule'
  | 'ser'
  | 'chg'
  | 'wl'
  | 'cdv';
