/**
 * The defaults and bounds of the worker's options of `new ChokaQ` (`concurrency`, `prefetch`,
 * `pollInterval`; documented on `ChokaQOptions`, checked by config/resolve.ts). The bound of
 * `concurrency` holds for every way to change it at run time too: `chokaq.setConcurrency` and the
 * live control `chokaq.workers.setConcurrency`.
 */

/** The defaults of the worker's options. */
export const WORKER_DEFAULTS = { concurrency: 10, prefetch: 'auto', pollInterval: '1s' } as const;

/** Largest `concurrency` (also at run time), and largest fixed `prefetch`. */
export const MAX_CONCURRENCY = 10_000;
