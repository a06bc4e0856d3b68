/** What the tool layer reports per call; the gauges read the store when scraped. */
export interface CallMetrics {
  /** `outcome`: `ok`, `input_required`, or the error code. */
  callFinished(tool: string, outcome: string, seconds: number): void;
  auditAppended(seconds: number): void;
  paymentQueried(outcome: string): void;
}

export interface OperationalCounts {
  readonly holdsActive: number;
  readonly approvalsPending: number;
}

/** For processes that do not serve /metrics: prom-client is then never loaded. */
export const noMetrics: CallMetrics = { callFinished() {}, auditAppended() {}, paymentQueried() {} };
