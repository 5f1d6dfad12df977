import { invalid } from '../../util/check.js';
import type { QueryName } from './generated.js';

/** Every named statement, bound to one schema. */
export type BoundQueries = Readonly<Record<QueryName, string>>;

/** Allowed schema names: lower-case identifiers that never need escaping. */
export const SCHEMA_NAME_PATTERN = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Schema names PostgreSQL keeps for itself: `pg_…` (CREATE SCHEMA refuses the prefix) and
 * `information_schema` (the SQL-standard catalog views). `public` is an ordinary schema.
 */
const RESERVED_SCHEMA = /^(pg_|information_schema$)/;

/** The schema used when none is configured. @default 'chokaq' */
export const DEFAULT_SCHEMA = 'chokaq';

/**
 * Returns `schema` when it matches {@link SCHEMA_NAME_PATTERN} and is not reserved by PostgreSQL
 * (`pg_…`, `information_schema`). The schema is the only identifier ever spliced into SQL.
 * @param field Names the option in the error. Default: `'schema'`.
 * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` naming `field` otherwise.
 */
export function validateSchema(schema: unknown, field = 'schema'): string {
  if (
    typeof schema !== 'string' ||
    !SCHEMA_NAME_PATTERN.test(schema) ||
    RESERVED_SCHEMA.test(schema)
  ) {
    throw invalid(
      'CHOKAQ_INVALID_CONFIG',
      field,
      "1-63 characters of [a-z0-9_], not starting with a digit, and not a PostgreSQL system schema ('pg_…', 'information_schema')",
      schema,
    );
  }
  return schema;
}

/**
 * Replaces every `:SCHEMA` placeholder in `sql` with the quoted, validated schema name, and every
 * `:WAKE_CHANNEL` with the schema's wake-up channel ({@link wakeChannel}) as a string literal.
 */
export function withSchema(sql: string, schema: string): string {
  const quoted = `"${validateSchema(schema)}"`;
  // The channel is [a-z0-9_] only (the schema is validated), so the literal needs no escaping.
  return sql.replace(/:SCHEMA\b/g, quoted).replace(/:WAKE_CHANNEL\b/g, `'${wakeChannel(schema)}'`);
}

/** Binds every statement of `queries` to `schema` once, so hot paths do no string work. */
export function bindQueries<K extends string>(
  queries: Readonly<Record<K, string>>,
  schema: string,
): Readonly<Record<K, string>> {
  const bound = {} as Record<K, string>;
  for (const name of Object.keys(queries) as K[]) bound[name] = withSchema(queries[name], schema);
  return bound;
}

/** The LISTEN/NOTIFY channel of a schema (at most 63 bytes, PostgreSQL's identifier limit). */
export function wakeChannel(schema: string): string {
  return `chokaq_${validateSchema(schema)}`.slice(0, 63);
}

/** The channel of a schema's cross-process event messages (`ClusterStore.broadcast`). */
export function eventsChannel(schema: string): string {
  return `chokaqev_${validateSchema(schema)}`.slice(0, 63);
}
