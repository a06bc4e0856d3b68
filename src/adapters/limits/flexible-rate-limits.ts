import type { Pool } from 'pg';
import type * as RateLimiterFlexible from 'rate-limiter-flexible';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RateLimits } from '../../ports/rate-limits.js';
import { databaseUnavailable, isConnectionLoss } from '../storage/postgres/pg-connection-loss.js';

/** A limit kept in a database that cannot be reached is UNAVAILABLE, like the call's own statements. */
const unreachable = (error: unknown): unknown => (isConnectionLoss(error) ? databaseUnavailable() : error);

type Library = typeof RateLimiterFlexible;
type Make = (library: Library, points: number, duration: number) => RateLimiterAbstract;

/** The library (every store it supports, in one index) loads with the first limit asked for. */
let loading: Promise<Library> | null = null;
const library = () => (loading ??= import('rate-limiter-flexible'));

/**
 * rate-limiter-flexible: in memory for one SQLite process; in a PostgreSQL table when several
 * instances share a database, so a limit holds across all of them. One limiter per budget.
 */
export class FlexibleRateLimits implements RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  private constructor(private readonly make: Make) {}

  static memory(): FlexibleRateLimits {
    return new FlexibleRateLimits((lib, points, duration) => new lib.RateLimiterMemory({ points, duration }));
  }

  static postgres(pool: Pool, schema: string): FlexibleRateLimits {
    return new FlexibleRateLimits(
      (lib, points, duration) =>
        new lib.RateLimiterPostgres({
          storeClient: pool,
          schemaName: schema,
          tableName: 'rate_limits',
          // Created by the migrations, so instances starting together do not race to create it.
          tableCreated: true,
          points,
          duration,
          keyPrefix: `${points}/${duration}`,
        }),
    );
  }

  private async limiter(points: number, windowMs: number): Promise<RateLimiterAbstract> {
    const duration = Math.max(1, Math.ceil(windowMs / 1000));
    const id = `${points}/${duration}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const lib = await library();
      // Another call may have made it while the library loaded.
      limiter = this.limiters.get(id) ?? this.make(lib, points, duration);
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  async take(key: string, points: number, windowMs: number): Promise<{ ok: boolean; retryAfterMs: number }> {
    const limiter = await this.limiter(points, windowMs);
    try {
      await limiter.consume(key, 1);
      return { ok: true, retryAfterMs: 0 };
    } catch (refusal) {
      if (refusal instanceof (await library()).RateLimiterRes)
        return { ok: false, retryAfterMs: refusal.msBeforeNext };
      throw unreachable(refusal);
    }
  }

  async check(key: string, points: number, windowMs: number): Promise<{ ok: boolean; retryAfterMs: number }> {
    const state = await (await this.limiter(points, windowMs)).get(key).catch((error: unknown) => {
      throw unreachable(error);
    });
    return state && state.consumedPoints >= points
      ? { ok: false, retryAfterMs: state.msBeforeNext }
      : { ok: true, retryAfterMs: 0 };
  }

  async reset(key: string, points: number, windowMs: number): Promise<void> {
    await (await this.limiter(points, windowMs)).delete(key).catch((error: unknown) => {
      throw unreachable(error);
    });
  }
}
