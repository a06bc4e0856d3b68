import type { StoreTx } from '../../../ports/store/index.js';
import type { AggregateOverrides } from './aggregates.js';
import { eachAggregate, SQL_AGGREGATES } from './aggregates.js';
import type { SqlDialect, SqlRunner } from './sql-runner.js';

export type { AggregateOverrides } from './aggregates.js';

/** A transaction whose store owns BEGIN and COMMIT, and runs `committed` after the COMMIT. */
export type SqlStoreTx = StoreTx & { readonly committed: (() => void)[] };

/** Every aggregate of the registry over one connection inside one transaction. */
export function sqlStoreTx(
  db: SqlRunner,
  dialect: SqlDialect,
  overrides: AggregateOverrides = {},
): SqlStoreTx {
  const committed: (() => void)[] = [];
  return {
    ...eachAggregate((name) => {
      const Aggregate = overrides[name] ?? SQL_AGGREGATES[name];
      return new Aggregate(db, dialect);
    }),
    committed,
    afterCommit: (callback) => committed.push(callback),
    serialize: (key) => dialect.serialize(db, key),
  };
}
