/** A point in time: milliseconds since 1970-01-01T00:00:00Z. */
export type Instant = number;
