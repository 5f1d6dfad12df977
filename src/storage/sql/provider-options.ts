/** Checks of the options that `postgres()` and `embedded()` share. */
import { checkLogger, type Logger } from '../../observability/logging/logger.js';
import { invalid } from '../../util/check.js';
import { checkClock, type Clock } from '../../util/clock.js';
import { DEFAULT_SCHEMA, validateSchema } from './schema.js';

/**
 * What `open()` does about migrations: `true` applies the pending ones, `false` leaves the schema
 * alone, `'check'` reads the ledger and fails with `CHOKAQ_SCHEMA_NOT_MIGRATED` when the schema
 * is missing or behind, creating nothing (for tools that only read, such as the CLI's `status`).
 */
export type MigrateOnOpen = boolean | 'check';

/** The shared options as given. */
export interface SqlProviderOptions {
  schema?: unknown;
  migrate?: unknown;
  logger?: unknown;
  clock?: unknown;
}

/** The shared options, checked, with defaults applied. */
export interface SqlProviderSettings {
  schema: string;
  migrate: MigrateOnOpen;
  /** The provider's own logger; `undefined` when not given (it then adopts ChokaQ's). */
  logger: Logger | undefined;
  /** The clock statements read; `undefined` when not given (the database's own). */
  clock: Clock | undefined;
}

/**
 * Checks `schema`, `migrate`, `logger` and `clock`; `prefix` names the options in errors, for example
 * `postgres(options)`.
 * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` naming the option and the value.
 */
export function checkSqlProviderOptions(
  given: SqlProviderOptions,
  prefix: string,
): SqlProviderSettings {
  return {
    schema: validateSchema(given.schema ?? DEFAULT_SCHEMA, `${prefix}.schema`),
    migrate: checkMigrateOnOpen(given.migrate ?? true, `${prefix}.migrate`),
    logger: given.logger === undefined ? undefined : checkLogger(given.logger, `${prefix}.logger`),
    clock: given.clock === undefined ? undefined : checkClock(given.clock, `${prefix}.clock`),
  };
}

function checkMigrateOnOpen(value: unknown, field: string): MigrateOnOpen {
  if (typeof value === 'boolean' || value === 'check') return value;
  throw invalid('CHOKAQ_INVALID_CONFIG', field, "true, false or 'check'", value);
}
