// Telemetry's door. Prometheus, the traced store and the OTLP exporter load only when switched on.
export { noMetrics } from './call-metrics.js';
export { meteredPayments } from './metered-payments.js';
export type { HoldfastMetrics } from './metrics.js';

export const loadMetrics = () => import('./metrics.js');
export const loadTracedStore = () => import('./traced-store.js');
export const loadTraceExport = () => import('./trace-export.js');
