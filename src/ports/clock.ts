import type { Instant } from '../domain/time/instant.js';

export interface Clock {
  /** The current instant, in milliseconds since the Unix epoch. */
  now(): Instant;
}
