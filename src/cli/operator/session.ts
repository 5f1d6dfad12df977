/**
 * The ChokaQ an operator command works through: on the store the connection flags choose, with
 * the job definitions of `--module` when given (so payload edits are checked by their schemas),
 * and — for bulk actions — a worker that serves only ChokaQ's own operator queue, so the action
 * runs even where no other worker does (an embedded store belongs to this process alone).
 */
import { ChokaQ } from '../../chokaq.js';
import type { AnyJobDefinition } from '../../job/registry.js';
import { consoleLogger, type LogLevel } from '../../observability/logger.js';
import {
  connectionFrom,
  describeConnection,
  openStore,
  requireExistingStore,
} from '../connection.js';
import { CliError, type CliIo } from '../io.js';
import { isChokaQ, loadWorkerModule } from '../module-loader.js';

/** The connection flags every operator command takes. */
export const CONNECTION_OPTIONS = {
  'database-url': { type: 'string' },
  'data-dir': { type: 'string' },
  schema: { type: 'string' },
  module: { type: 'string' },
} as const;

/** Usage lines of {@link CONNECTION_OPTIONS}. */
export const CONNECTION_USAGE = `  --database-url URL   PostgreSQL (default: CHOKAQ_DATABASE_URL)
  --data-dir DIR       an existing embedded store folder, not open in another process
                       (default: CHOKAQ_DATA_DIR, else ./.chokaq)
  --schema NAME        schema holding ChokaQ's tables (default: chokaq)
  --module FILE        your worker module: its job definitions check edited payloads`;

/** Values of {@link CONNECTION_OPTIONS} as parsed. */
export interface ConnectionValues {
  'database-url'?: string | undefined;
  'data-dir'?: string | undefined;
  schema?: string | undefined;
  module?: string | undefined;
}

/**
 * Opens an operator session. With `runsBulk`, the session's worker is started and serves only
 * the operator queue (bulk actions); the caller stops the session when done.
 */
export async function openSession(
  values: ConnectionValues,
  io: CliIo,
  options: { runsBulk: boolean },
): Promise<ChokaQ> {
  const logger = consoleLogger((io.env.CHOKAQ_LOG_LEVEL as LogLevel | undefined) ?? 'warn');
  const jobs = values.module === undefined ? [] : await moduleJobs(values.module, io);
  const connection = connectionFrom(values, io.env);
  requireExistingStore(connection);
  io.stderr.write(`chokaq: ${describeConnection(connection)}\n`);
  const chokaq = new ChokaQ({
    storage: await openStore(connection, logger),
    jobs,
    logger,
    worker: options.runsBulk,
    // No queue of the user's: every worker serves the operator queue besides its own.
    workerQueues: [],
    concurrency: 1,
  });
  if (options.runsBulk) await chokaq.start();
  return chokaq;
}

/** The job definitions a worker module declares. */
async function moduleJobs(path: string, io: CliIo): Promise<readonly AnyJobDefinition[]> {
  const exported = await loadWorkerModule(path, io.env);
  if (typeof exported !== 'object' || exported === null || isChokaQ(exported)) {
    throw new CliError(`--module ${path} must default-export ChokaQ options with 'jobs'`);
  }
  return (exported as { jobs?: readonly AnyJobDefinition[] }).jobs ?? [];
}

/** Opens a session, runs `fn` with it and stops it whatever happens. Resolves to `fn`'s code. */
export async function withSession(
  values: ConnectionValues,
  io: CliIo,
  fn: (chokaq: ChokaQ) => Promise<number>,
  options: { runsBulk: boolean } = { runsBulk: false },
): Promise<number> {
  const chokaq = await openSession(values, io, options);
  try {
    return await fn(chokaq);
  } finally {
    await chokaq.stop();
  }
}
