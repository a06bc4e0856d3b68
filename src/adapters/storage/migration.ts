/** One step of a schema: applied once, in order, in a transaction of its own. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}
