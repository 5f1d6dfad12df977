import { consoleLogger, type LogMeta, type Logger } from './logger.js';

/**
 * The logger of a storage provider, scoped to it (`postgres`, `embedded`). It writes to the
 * provider's own `logger` option when one was given; otherwise to `consoleLogger()` until
 * {@link ProviderLogger.adopt} hands it ChokaQ's logger, so the store logs where the engine does.
 * Children made earlier (the LISTEN connection's, the wake notifier's) follow the switch.
 */
export interface ProviderLogger extends Logger {
  /** Writes to `engine.child(scope)` from now on, unless the provider was given its own logger. */
  adopt(engine: Logger): void;
}

/**
 * @param own The provider's `logger` option; `undefined` when not given.
 * @param scope The provider's scope, such as `postgres`.
 */
export function providerLogger(own: Logger | undefined, scope: string): ProviderLogger {
  let target = (own ?? consoleLogger()).child(scope);
  return {
    ...forwarding(() => target),
    adopt(engine: Logger): void {
      if (own === undefined) target = engine.child(scope);
    },
  };
}

/** A logger that writes each line to whatever `current()` is at that moment. */
function forwarding(current: () => Logger): Logger {
  return {
    debug: (message: string, meta?: LogMeta) => current().debug(message, meta),
    info: (message: string, meta?: LogMeta) => current().info(message, meta),
    warn: (message: string, meta?: LogMeta) => current().warn(message, meta),
    error: (message: string, meta?: LogMeta) => current().error(message, meta),
    child(scope: string): Logger {
      // The child of the current target, made again only when the target changed.
      let cached: { parent: Logger; child: Logger } | undefined;
      return forwarding(() => {
        const parent = current();
        if (cached?.parent !== parent) cached = { parent, child: parent.child(scope) };
        return cached.child;
      });
    },
  };
}
