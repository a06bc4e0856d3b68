/** JSON lines on stderr: stdout belongs to the stdio transport. Never pass secrets in fields. */
export interface Logger {
  /** `now`: written at once rather than with the turn's other lines (audit checkpoints). */
  info(message: string, fields?: Record<string, unknown>, options?: { readonly now?: boolean }): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** For one-off commands and tests: says nothing (pino is never loaded). */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
