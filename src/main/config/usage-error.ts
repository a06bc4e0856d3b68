/** A mistake in the command line: reported as one clear line, exit code 2. */
export class UsageError extends Error {}
