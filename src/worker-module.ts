import type { ChokaQ } from './chokaq.js';
import type { ChokaQOptions } from './config/options.js';

/**
 * What a module given to `chokaq worker <module>` default-exports: ChokaQ options, where
 * `storage` is optional (without it the store comes from `--database-url` / `--data-dir` and
 * their environment variables), or a ready ChokaQ instance.
 *
 * @example
 * ```ts
 * import type { WorkerModule } from 'chokaq';
 * export default { jobs: [sendEmail], concurrency: 16 } satisfies WorkerModule;
 * ```
 */
export type WorkerModule =
  (Omit<ChokaQOptions, 'storage'> & Partial<Pick<ChokaQOptions, 'storage'>>) | ChokaQ;
