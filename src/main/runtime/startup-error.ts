/** The server cannot start as configured (a refused bind address, say): one line, exit code 2. */
export class StartupError extends Error {}
