/** Structured fields attached to a log line. */
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
  /** A logger whose lines carry `scope` (for example `worker` or `job:email.send.v1`). */
  child(scope: string): Logger;
}

/** Log levels from most to least verbose. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

/**
 * A logger that prints `LEVEL [scope] message {meta}` lines to stderr.
 * @param level Lowest level printed. Default: `'info'`, or `CHOKAQ_LOG_LEVEL` when set.
 */
export function consoleLogger(
  level: LogLevel = (process.env.CHOKAQ_LOG_LEVEL as LogLevel | undefined) ?? 'info',
  scope = 'chokaq',
): Logger {
  const write = (at: Exclude<LogLevel, 'silent'>, message: string, meta?: LogMeta): void => {
    if (ORDER[at] < ORDER[level]) return;
    const fields = meta && Object.keys(meta).length > 0 ? ` ${JSON.stringify(meta)}` : '';
    process.stderr.write(`${at.toUpperCase()} [${scope}] ${message}${fields}\n`);
  };
  return {
    debug: (m, meta) => write('debug', m, meta),
    info: (m, meta) => write('info', m, meta),
    warn: (m, meta) => write('warn', m, meta),
    error: (m, meta) => write('error', m, meta),
    child: (child) => consoleLogger(level, `${scope}:${child}`),
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

/** Adapts a pino logger (or anything with its shape) to {@link Logger}. */
export function fromPino(pino: PinoLike): Logger {
  return {
    debug: (m, meta) => pino.debug(meta ?? {}, m),
    info: (m, meta) => pino.info(meta ?? {}, m),
    warn: (m, meta) => pino.warn(meta ?? {}, m),
    error: (m, meta) => pino.error(meta ?? {}, m),
    child: (scope) => fromPino(pino.child({ scope })),
  };
}
