import type { Pool } from 'pg';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimits } from '../../ports/rate-limits.js';

type Make = (points: number, duration: number) => RateLimiterAbstract;

/**
 * rate-limiter-flexible: in memory for one SQLite process; in a PostgreSQL table when several
 * instances share a database, so a limit holds across all of them. One limiter per budget.
 */
export class FlexibleRateLimits implements RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  private constructor(private readonly make: Make) {}

  static memory(): FlexibleRateLimits {
    return new FlexibleRateLimits((points, duration) => new RateLimiterMemory({ points, duration }));
  }

  static postgres(pool: Pool, schema: string): FlexibleRateLimits {
    return new FlexibleRateLimits(
      (points, duration) =>
        new RateLimiterPostgres({
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

  private limiter(points: number, windowMs: number): RateLimiterAbstract {
    const duration = Math.max(1, Math.ceil(windowMs / 1000));
    const id = `${points}/${duration}`;
    let limiter = this.limiters.get(id);
    if (!limiter) this.limiters.set(id, (limiter = this.make(points, duration)));
    return limiter;
  }

  async take(key: string, points: number, windowMs: number): Promise<{ ok: boolean; retryAfterMs: number }> {
    try {
      await this.limiter(points, windowMs).consume(key, 1);
      return { ok: true, retryAfterMs: 0 };
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes) return { ok: false, retryAfterMs: refusal.msBeforeNext };
      throw refusal;
    }
  }

  async check(key: string, points: number, windowMs: number): Promise<{ ok: boolean; retryAfterMs: number }> {
    const state = await this.limiter(points, windowMs).get(key);
    return state && state.consumedPoints >= points
      ? { ok: false, retryAfterMs: state.msBeforeNext }
      : { ok: true, retryAfterMs: 0 };
  }

  async reset(key: string, points: number, windowMs: number): Promise<void> {
    await this.limiter(points, windowMs).delete(key);
  }
}
