import { existsSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { ChokaQ } from '../../chokaq.js';
import { ChokaQError } from '../../errors.js';
import { consoleLogger, type LogLevel } from '../../observability/logger.js';
import { connectionFrom, describeConnection, openStore } from '../connection.js';
import { CliError, type CliIo } from '../io.js';
import type { WorkerModule } from '../worker-module.js';

/** Usage text of `chokaq worker`. */
export const WORKER_USAGE = `chokaq worker <module> [--database-url URL | --data-dir DIR] [--schema NAME] [--concurrency N]

Runs a worker until SIGTERM or SIGINT, then stops gracefully (a second signal exits at once).
<module> is a JavaScript module that default-exports ChokaQ options (jobs, queues, middleware, …;
storage is optional and otherwise comes from the connection flags) or a ChokaQ instance; type it
with \`satisfies WorkerModule\`. A TypeScript module needs a loader: compile it first, or run
\`NODE_OPTIONS='--import tsx' chokaq worker jobs.ts\`.
  --database-url URL   PostgreSQL (default: CHOKAQ_DATABASE_URL)
  --data-dir DIR       embedded store folder (default: CHOKAQ_DATA_DIR, else ./.chokaq)
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

const TYPESCRIPT_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);

/** Node flags after which a TypeScript module may well import (a loader or type stripping). */
const LOADER_FLAG =
  /(?:^|\s)(?:--import|--loader|--experimental-loader|--require|-r|--experimental-strip-types|--experimental-transform-types)(?:[=\s]|$)/;

/** Imports the module's default export; every way this fails is one line naming the module. */
async function loadWorkerModule(
  modulePath: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<unknown> {
  const file = resolve(modulePath);
  if (!existsSync(file)) throw new CliError(`worker module ${modulePath} not found (${file})`);
  const typescript = TYPESCRIPT_EXTENSIONS.has(extname(file).toLowerCase());
  if (typescript && !typeScriptMayLoad(env)) throw new CliError(typeScriptAdvice(modulePath));
  let loaded: { default?: unknown };
  try {
    loaded = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typescript && code === 'ERR_UNKNOWN_FILE_EXTENSION')
      throw new CliError(typeScriptAdvice(modulePath));
    const cause = error instanceof Error ? error.message : String(error);
    const errorCode = error instanceof ChokaQError ? ` (${error.code})` : '';
    throw new CliError(
      `cannot load worker module ${modulePath}: ${cause.split('\n')[0]}${errorCode}`,
      1,
    );
  }
  return loaded.default;
}

/** Whether this Node process can be expected to import TypeScript: built in, or a loader given. */
function typeScriptMayLoad(env: Readonly<Record<string, string | undefined>>): boolean {
  // `process.features.typescript` exists from Node 22.10 and is truthy when types are stripped.
  const features = process.features as { typescript?: unknown };
  if (features.typescript) return true;
  return LOADER_FLAG.test(process.execArgv.join(' ')) || LOADER_FLAG.test(env.NODE_OPTIONS ?? '');
}

function typeScriptAdvice(modulePath: string): string {
  return (
    `worker module ${modulePath} is TypeScript, which Node ${process.version} cannot import by ` +
    `itself: compile it to JavaScript first, or give node a TypeScript loader ` +
    `(NODE_OPTIONS='--import tsx' chokaq worker ${modulePath}; ` +
    `or --experimental-strip-types on Node 22.6 and later)`
  );
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
