import type { Instant } from '../domain/time/instant.js';

export interface Clock {
  now(): Instant;
}
