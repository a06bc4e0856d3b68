import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CallMetrics, OperationalCounts } from './call-metrics.js';

export type { CallMetrics, OperationalCounts };

const CONFLICTS = new Set(['SLOT_UNAVAILABLE', 'VERSION_CONFLICT', 'IDEMPOTENCY_CONFLICT']);

/**
 * The process's Prometheus metrics (prom-client): calls by tool and outcome with their latency,
 * conflicts, rate-limit refusals, payment outcomes, audit append latency, and — read from the
 * database at scrape time, so every instance reports the same — holds active and approvals
 * pending. Process metrics (CPU, memory, event loop lag) come with prom-client's defaults.
 */
export class HoldfastMetrics implements CallMetrics {
  readonly registry = new Registry();
  private readonly calls: Counter<'tool' | 'outcome'>;
  private readonly latency: Histogram<'tool'>;
  private readonly conflicts: Counter<'code'>;
  private readonly refusals: Counter;
  private readonly payments: Counter<'outcome'>;
  private readonly audit: Histogram;

  constructor(counts: () => Promise<OperationalCounts>) {
    const registers = [this.registry];
    this.calls = new Counter({
      name: 'holdfast_tool_calls_total',
      help: 'Tool calls by tool and outcome (ok, input_required or the error code).',
      labelNames: ['tool', 'outcome'],
      registers,
    });
    this.latency = new Histogram({
      name: 'holdfast_tool_call_duration_seconds',
      help: 'Time from a tool call’s arrival to its answer.',
      labelNames: ['tool'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.conflicts = new Counter({
      name: 'holdfast_conflicts_total',
      help: 'Calls refused because someone else got there first (slot, version, idempotency key).',
      labelNames: ['code'],
      registers,
    });
    this.refusals = new Counter({
      name: 'holdfast_rate_limit_refusals_total',
      help: 'Calls refused by the per-connection call budget.',
      registers,
    });
    this.payments = new Counter({
      name: 'holdfast_payment_outcomes_total',
      help: 'Payment queries by what the provider said (PAID, PENDING, …) or unavailable.',
      labelNames: ['outcome'],
      registers,
    });
    this.audit = new Histogram({
      name: 'holdfast_audit_append_duration_seconds',
      help: 'Time to append a call’s audit record after its answer.',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25],
      registers,
    });
    let pending: Promise<OperationalCounts> | null = null;
    // One store read per scrape, shared by both gauges.
    const read = () => (pending ??= counts().finally(() => setImmediate(() => (pending = null))));
    new Gauge({
      name: 'holdfast_holds_active',
      help: 'Bookings held and not yet expired, every tenant.',
      registers,
      async collect() {
        this.set((await read()).holdsActive);
      },
    });
    new Gauge({
      name: 'holdfast_approvals_pending',
      help: 'Approvals asked for and not yet decided or expired, every tenant.',
      registers,
      async collect() {
        this.set((await read()).approvalsPending);
      },
    });
    collectDefaultMetrics({ register: this.registry, prefix: 'holdfast_' });
  }

  callFinished(tool: string, outcome: string, seconds: number): void {
    this.calls.inc({ tool, outcome });
    this.latency.observe({ tool }, seconds);
    if (CONFLICTS.has(outcome)) this.conflicts.inc({ code: outcome });
    if (outcome === 'RATE_LIMITED') this.refusals.inc();
  }

  auditAppended(seconds: number): void {
    this.audit.observe(seconds);
  }

  paymentQueried(outcome: string): void {
    this.payments.inc({ outcome });
  }
}
