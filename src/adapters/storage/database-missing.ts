/** An operator command named a database that does not exist: it never creates one. */
export class DatabaseMissingError extends Error {
  override readonly name = 'DatabaseMissingError';
  constructor(where: string) {
    super(
      `No Holdfast database at ${where}. Only \`holdfast serve\`, \`holdfast stdio\` and \`holdfast db migrate\` create one; check --db / --database.`,
    );
  }
}
