import type { StoreTx } from '../../../ports/store/index.js';
import { eachAggregate } from './aggregates.js';

/** Thrown when a `writeOne` unit makes a second store call: it would not be atomic. */
export class NotSingleCallError extends Error {
  override readonly name = 'NotSingleCallError';
}

/**
 * A view of `tx` that allows exactly one aggregate call, for units a store may run as one
 * autocommitted statement (Store.writeOne). A second call, or serialize(), throws.
 */
export function singleCall(tx: StoreTx): StoreTx {
  let calls = 0;
  const guard = <T extends object>(aggregate: T): T =>
    new Proxy(aggregate, {
      get(target, property) {
        const member = Reflect.get(target, property, target) as unknown;
        if (typeof member !== 'function') return member;
        return (...args: unknown[]) => {
          if (++calls > 1) throw new NotSingleCallError('writeOne allows exactly one store call');
          return (member as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  return {
    ...eachAggregate((name) => guard(tx[name])),
    afterCommit: (callback) => tx.afterCommit(callback),
    serialize: () =>
      Promise.reject(new NotSingleCallError('writeOne cannot serialise: it has no transaction')),
  };
}
