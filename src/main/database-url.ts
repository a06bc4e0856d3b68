export function isPostgresUrl(database: string): boolean {
  return /^postgres(ql)?:\/\//.test(database);
}

/** Where the data lives, for logs: never the password of a connection URL. */
export function describeDatabase(database: string): string {
  if (!isPostgresUrl(database)) return database;
  const url = new URL(database);
  url.password = url.password ? '***' : '';
  return url.toString();
}
