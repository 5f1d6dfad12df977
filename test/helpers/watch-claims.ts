/**
 * A test signal for "the worker has claimed", without a hook in the engine: the store handed to
 * ChokaQ passes every call to the real store and reports each finished `jobs.claim` with its rows.
 * Also a store whose wake-up subscription waits for the test ({@link holdListen}).
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
    const rows = await real.jobs.claim(request);
    const ready = waiters;
    waiters = [];
    for (const resolve of ready) resolve(rows);
    return rows;
  };
  const jobs = passThrough(real.jobs, 'claim', claim);
  const store = passThrough(real, 'jobs', jobs);
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

/** A store whose wake-up subscription waits for the test; see {@link holdListen}. */
export interface HeldListen {
  /** The store to give to ChokaQ: the real store, its `cluster.listen` held back. */
  store: Store;
  /** Lets the held subscription (and any later one) through to the real store. */
  release: () => void;
}

/** Wraps `real` so that `cluster.listen` subscribes only once the test calls `release`. */
export function holdListen(real: Store): HeldListen {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const listen = real.cluster.listen?.bind(real.cluster);
  const held = listen
    ? async (onWake: (queue: string) => void) => {
        await released;
        return listen(onWake);
      }
    : undefined;
  const cluster = passThrough(real.cluster, 'listen', held);
  return { store: passThrough(real, 'cluster', cluster), release };
}

/** `target`, with `property` replaced by `value` and every method bound to `target`. */
function passThrough<T extends object>(target: T, property: string, value: unknown): T {
  return new Proxy(target, {
    get(real, name) {
      if (name === property) return value;
      const own: unknown = Reflect.get(real, name, real);
      return typeof own === 'function' ? (own as () => unknown).bind(real) : own;
    },
  });
}
