import { pino } from 'pino';
import { activeIds } from '../telemetry/tracing.js';
import type { Logger } from './logger.js';
import { prettyLine } from './pretty-line.js';

export type { Logger };
export { silentLogger } from './logger.js';
type Level = 'info' | 'warn' | 'error';

/**
 * Writes to stderr, the lines of one event-loop turn together: stderr on a pipe is synchronous,
 * and one write per turn instead of one per call keeps it off the hot path. Warnings and errors
 * are written at once, and whatever is buffered goes out before the process exits.
 */
function stderrLines(): (line: string, urgent: boolean) => void {
  let buffered = '';
  const flush = () => {
    if (buffered === '') return;
    const out = buffered;
    buffered = '';
    process.stderr.write(out);
  };
  process.once('exit', flush);
  return (line, urgent) => {
    const first = buffered === '';
    buffered += line;
    if (urgent) flush();
    else if (first) setImmediate(flush).unref();
  };
}

/**
 * pino, writing JSON lines `{"level","timestamp","message",...}` through the batching writer above
 * (or `write`, for tests); `pretty` turns each into one readable line for a terminal. Every line
 * written inside a span carries its `trace_id` and `span_id` (W3C: 32 and 16 hex), so logs join
 * the traces.
 */
export function jsonLogger(write?: (line: string) => void, format: 'json' | 'pretty' = 'json'): Logger {
  const batched = write ? null : stderrLines();
  let urgent = false;
  const out = (line: string) => (write ? write(line) : batched!(line, urgent));
  const destination = { write: format === 'pretty' ? (line: string) => out(prettyLine(line)) : out };
  const log = pino(
    {
      base: undefined,
      messageKey: 'message',
      // RFC 3339 under `timestamp` (OpenTelemetry's name for it).
      timestamp: () => `,"timestamp":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => {
        const ids = activeIds();
        return ids ? { trace_id: ids.traceId, span_id: ids.spanId } : {};
      },
    },
    destination,
  );
  const emit = (
    level: Level,
    message: string,
    fields: Record<string, unknown> = {},
    now = level !== 'info',
  ) => {
    urgent = now;
    log[level](fields, message);
    urgent = false;
  };
  return {
    info: (m, f, o) => emit('info', m, f, o?.now ?? false),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}
