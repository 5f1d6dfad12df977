import { ChokaQ } from '../../chokaq.js';
import { consoleLogger, type LogLevel } from '../../observability/logging/logger.js';
import { connectionFrom, describeConnection, openStore } from '../connection.js';
import { CliError, type CliIo } from '../io.js';
import { isChokaQ, loadWorkerModule } from '../module-loader.js';
import type { WorkerModule } from '../../worker-module.js';
import { parseFlags } from '../args.js';

/** Usage text of `chokaq worker`. */
export const WORKER_USAGE = `chokaq worker <module> (--database-url URL | --data-dir DIR) [--schema NAME] [--concurrency N]

Runs a worker until SIGTERM or SIGINT, then stops gracefully (a second signal exits at once).
<module> is a JavaScript module that default-exports ChokaQ options (jobs, queues, middleware, …;
storage is optional and otherwise comes from the connection flags) or a ChokaQ instance; type it
with \`satisfies WorkerModule\`. A TypeScript module needs a loader: compile it first, or run
\`NODE_OPTIONS='--import tsx' chokaq worker jobs.ts\`.
  --database-url URL   PostgreSQL (default: CHOKAQ_DATABASE_URL)
  --data-dir DIR       the embedded store folder, created if missing (default:
                       CHOKAQ_DATA_DIR); a worker given neither a URL nor a folder refuses
                       to start (--data-dir ./.chokaq for the default folder)
  --schema NAME        schema holding ChokaQ's tables (default: chokaq)
  --concurrency N      jobs run at once in this process (overrides the module's)`;

/** The options form of {@link WorkerModule}. */
type WorkerOptions = Exclude<WorkerModule, ChokaQ>;

/** `chokaq worker <module>`: runs until `stopSignal` aborts. Resolves to the exit code. */
export async function workerCommand(
  args: string[],
  io: CliIo,
  stopSignal?: AbortSignal,
): Promise<number> {
  const { values, positionals } = parseFlags({
    args,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      schema: { type: 'string' },
      concurrency: { type: 'string' },
    },
  });
  const [modulePath] = positionals;
  if (!modulePath || positionals.length > 1)
    throw new CliError('worker needs exactly one module path');
  const exported = await loadWorkerModule(modulePath, io.env);
  if (typeof exported !== 'object' || exported === null) {
    throw new CliError(`${modulePath} must default-export ChokaQ options or a ChokaQ instance`);
  }
  const logger = consoleLogger((io.env.CHOKAQ_LOG_LEVEL as LogLevel | undefined) ?? 'info');
  const chokaq = isChokaQ(exported) ? exported : await fromOptions(exported, values, io, logger);
  if (values.concurrency !== undefined) chokaq.setConcurrency(Number(values.concurrency));
  await chokaq.start();
  io.stderr.write(`chokaq worker ${chokaq.workerId} running; send SIGTERM or SIGINT to stop\n`);
  await new Promise<void>((resolveStop) => {
    if (stopSignal?.aborted) resolveStop();
    stopSignal?.addEventListener('abort', () => resolveStop(), { once: true });
  });
  io.stderr.write('stopping gracefully…\n');
  await chokaq.stop();
  io.stderr.write('stopped\n');
  return 0;
}

async function fromOptions(
  options: WorkerOptions,
  values: {
    'data-dir'?: string | undefined;
    'database-url'?: string | undefined;
    schema?: string | undefined;
  },
  io: CliIo,
  logger: ReturnType<typeof consoleLogger>,
): Promise<ChokaQ> {
  if (options.storage) return new ChokaQ({ ...options, storage: options.storage });
  const connection = connectionFrom(values, io.env);
  // A worker creates and migrates its store: the embedded one only when asked for by name.
  if (!connection.databaseUrl && !connection.dataDirGiven) {
    throw new CliError(
      'worker needs a store: pass --database-url URL (or set CHOKAQ_DATABASE_URL) for ' +
        'PostgreSQL, or --data-dir DIR (or set CHOKAQ_DATA_DIR) for the embedded store, ' +
        'created if missing (--data-dir ./.chokaq for the default folder)',
    );
  }
  io.stderr.write(`chokaq worker: ${describeConnection(connection)}\n`);
  return new ChokaQ({
    logger,
    ...options,
    storage: await openStore(connection, logger, 'migrate'),
  });
}
