import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ChokaQ } from '../../chokaq.js';
import type { ChokaQOptions } from '../../config/options.js';
import { consoleLogger } from '../../observability/logger.js';
import { connectionFrom, describeConnection, openStore } from '../connection.js';
import { CliError, type CliIo } from '../io.js';

/** Usage text of `chokaq worker`. */
export const WORKER_USAGE = `chokaq worker <module> [--database-url URL | --data-dir DIR] [--schema NAME] [--concurrency N]

Runs a worker until SIGTERM or SIGINT, then stops gracefully (a second signal exits at once).
<module> default-exports ChokaQ options (jobs, queues, middleware, …; storage is optional and
otherwise comes from the connection flags), or a ChokaQ instance.`;

/** What a worker module may default-export. */
export type WorkerModule = Omit<ChokaQOptions, 'storage'> & Partial<Pick<ChokaQOptions, 'storage'>>;

/** `chokaq worker <module>`: runs until `stopSignal` aborts. Resolves to the exit code. */
export async function workerCommand(
  args: string[],
  io: CliIo,
  stopSignal?: AbortSignal,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      schema: { type: 'string' },
      concurrency: { type: 'string' },
    },
    strict: true,
  });
  const [modulePath] = positionals;
  if (!modulePath || positionals.length > 1)
    throw new CliError('worker needs exactly one module path');
  const loaded = (await import(pathToFileURL(resolve(modulePath)).href)) as { default?: unknown };
  const exported = loaded.default;
  if (typeof exported !== 'object' || exported === null) {
    throw new CliError(`${modulePath} must default-export ChokaQ options or a ChokaQ instance`);
  }
  const logger = consoleLogger();
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
  options: WorkerModule,
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
  io.stderr.write(`chokaq worker: ${describeConnection(connection)}\n`);
  return new ChokaQ({ logger, ...options, storage: await openStore(connection, logger) });
}

/** Duck-typed, so an instance made by another copy of the package is recognised too. */
function isChokaQ(value: object): value is ChokaQ {
  return (
    value instanceof ChokaQ ||
    (typeof (value as ChokaQ).start === 'function' && typeof (value as ChokaQ).stop === 'function')
  );
}
