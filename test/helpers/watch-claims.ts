/**
 * A test signal for "the worker has claimed", without a hook in the engine: the store handed to
 * ChokaQ passes every call to the real store and reports each finished `claim` with its rows.
 */
import type { ClaimedJob } from '../../src/storage/model.js';
import type { ClaimRequest } from '../../src/storage/job-store.js';
import type { Store } from '../../src/storage/store.js';

/** A store whose claims can be awaited; see {@link watchClaims}. */
export interface ClaimWatch {
  /** The store to give to ChokaQ: the real store, with `claim` reported. */
  store: Store;
  /**
   * Resolves with the rows of the next claim that finishes (call it before the claim can
   * happen); rejects after `timeoutMs`. Default `timeoutMs`: `5000`.
   */
  nextClaim: (timeoutMs?: number) => Promise<ClaimedJob[]>;
}

/** Wraps `real` so each finished claim resolves the waiters of {@link ClaimWatch.nextClaim}. */
export function watchClaims(real: Store): ClaimWatch {
  let waiters: ((rows: ClaimedJob[]) => void)[] = [];
  const claim = async (request: ClaimRequest): Promise<ClaimedJob[]> => {
    const rows = await real.claim(request);
    const ready = waiters;
    waiters = [];
    for (const resolve of ready) resolve(rows);
    return rows;
  };
  const store = new Proxy(real, {
    get(target, property) {
      if (property === 'claim') return claim;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
  return {
    store,
    nextClaim: (timeoutMs = 5000) =>
      new Promise<ClaimedJob[]>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no claim finished within ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push((rows) => {
          clearTimeout(timer);
          resolve(rows);
        });
      }),
  };
}
