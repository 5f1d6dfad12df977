/** Checks of the options that `postgres()` and `embedded()` share. */
import { checkLogger, type Logger } from '../../observability/logger.js';
import { checkBoolean } from '../../util/check.js';
import { DEFAULT_SCHEMA, validateSchema } from './schema.js';

/** The shared options as given. */
export interface SqlProviderOptions {
  schema?: unknown;
  migrate?: unknown;
  logger?: unknown;
}

/** The shared options, checked, with defaults applied. */
export interface SqlProviderSettings {
  schema: string;
  migrate: boolean;
  /** The provider's own logger; `undefined` when not given (it then adopts ChokaQ's). */
  logger: Logger | undefined;
}

/**
 * Checks `schema`, `migrate` and `logger`; `prefix` names the options in errors, for example
 * `postgres(options)`.
 * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` naming the option and the value.
 */
export function checkSqlProviderOptions(
  given: SqlProviderOptions,
  prefix: string,
): SqlProviderSettings {
  return {
    schema: validateSchema(given.schema ?? DEFAULT_SCHEMA, `${prefix}.schema`),
    migrate: checkBoolean(given.migrate ?? true, `${prefix}.migrate`),
    logger: given.logger === undefined ? undefined : checkLogger(given.logger, `${prefix}.logger`),
  };
}
