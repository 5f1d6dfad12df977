import { hasMethods, invalid } from '../../util/check.js';

/**
 * Structured fields attached to a log line. `scope` is reserved for the logger's own scope: a
 * `scope` field here is left out, so a record never carries two.
 */
export type LogMeta = Record<string, unknown>;

/**
 * What ChokaQ logs through. A pino logger fits once wrapped by {@link fromPino}; the default,
 * {@link consoleLogger}, writes one line per event to stderr.
 */
export interface Logger {
  debug(message: string, meta?: LogMeta): void;
  info(message: string, meta?: LogMeta): void;
  warn(message: string, meta?: LogMeta): void;
  error(message: string, meta?: LogMeta): void;
  /**
   * A logger whose lines carry `scope` (for example `worker` or `job:email.send.v1`), joined to
   * this logger's own with `:` — a child of a child has one scope, such as `worker:heartbeat`.
   */
  child(scope: string): Logger;
}

/** Log levels from most to least verbose. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/** `meta` without a `scope` field (the record's scope comes from the logger). */
function withoutScope(meta: LogMeta | undefined): LogMeta {
  if (meta === undefined) return {};
  if (!Object.hasOwn(meta, 'scope')) return meta;
  return Object.fromEntries(Object.entries(meta).filter(([key]) => key !== 'scope'));
}

/** `child` joined to `parent`, or `child` alone at the top. */
function joinScope(parent: string | undefined, child: string): string {
  return parent === undefined || parent === '' ? child : `${parent}:${child}`;
}

/**
 * A logger that prints `LEVEL [scope] message {meta}` lines to stderr.
 * @param level Lowest level printed. Default: `'info'`, or `CHOKAQ_LOG_LEVEL` when set.
 * @param scope Scope of its lines; children join theirs to it. Default: `'chokaq'`.
 */
export function consoleLogger(
  level: LogLevel = (process.env.CHOKAQ_LOG_LEVEL as LogLevel | undefined) ?? 'info',
  scope = 'chokaq',
): Logger {
  const write = (at: Exclude<LogLevel, 'silent'>, message: string, meta?: LogMeta): void => {
    if (ORDER[at] < ORDER[level]) return;
    const fields = withoutScope(meta);
    const suffix = Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
    process.stderr.write(`${at.toUpperCase()} [${scope}] ${message}${suffix}\n`);
  };
  return {
    debug: (m, meta) => write('debug', m, meta),
    info: (m, meta) => write('info', m, meta),
    warn: (m, meta) => write('warn', m, meta),
    error: (m, meta) => write('error', m, meta),
    child: (child) => consoleLogger(level, joinScope(scope, child)),
  };
}

/** A logger that drops everything. */
export const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};

/** The subset of a pino logger that {@link fromPino} needs. */
export interface PinoLike {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  child(bindings: object): PinoLike;
}

/**
 * Adapts a pino logger (or anything with its shape) to {@link Logger}. Lines of a child carry
 * one `scope` binding, the joined scope (`worker:heartbeat`): each child is made from `pino`
 * itself, because pino writes the bindings of nested children side by side, so a child of a
 * child would print `scope` twice. Do not bind `scope` on `pino` yourself, for the same reason.
 */
export function fromPino(pino: PinoLike): Logger {
  return scopedPino(pino, undefined);
}

/** {@link fromPino} at `scope` (`undefined` = the root, no binding). */
function scopedPino(root: PinoLike, scope: string | undefined): Logger {
  const target = scope === undefined ? root : root.child({ scope });
  return {
    debug: (m, meta) => target.debug(withoutScope(meta), m),
    info: (m, meta) => target.info(withoutScope(meta), m),
    warn: (m, meta) => target.warn(withoutScope(meta), m),
    error: (m, meta) => target.error(withoutScope(meta), m),
    child: (child) => scopedPino(root, joinScope(scope, child)),
  };
}

/**
 * Checks that `value` has the methods of a {@link Logger}.
 * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` naming `field` otherwise.
 */
export function checkLogger(value: unknown, field: string): Logger {
  if (!hasMethods(value, ['debug', 'info', 'warn', 'error', 'child'])) {
    throw invalid(
      'CHOKAQ_INVALID_CONFIG',
      field,
      'an object with debug, info, warn, error and child functions (fromPino(pino) adapts pino)',
      value,
    );
  }
  return value as Logger;
}

/**
 * A logger that adds `fields` to every record (a job's id, type and queue); a record's own meta
 * wins over them, and children keep them.
 */
export function withFields(logger: Logger, fields: LogMeta): Logger {
  const add = (meta: LogMeta | undefined): LogMeta =>
    meta === undefined ? fields : { ...fields, ...meta };
  return {
    debug: (message, meta) => logger.debug(message, add(meta)),
    info: (message, meta) => logger.info(message, add(meta)),
    warn: (message, meta) => logger.warn(message, add(meta)),
    error: (message, meta) => logger.error(message, add(meta)),
    child: (scope) => withFields(logger.child(scope), fields),
  };
}
