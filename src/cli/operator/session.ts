/**
 * The ChokaQ an operator command works through: on the store the connection flags choose, with
 * the job definitions of `--module` when given (so payload edits are checked by their schemas),
 * and — for bulk actions — a worker that serves only ChokaQ's own operator queue, so the action
 * runs even where no other worker does (an embedded store belongs to this process alone).
 */
import { ChokaQ } from '../../chokaq.js';
import type { AnyJobDefinition } from '../../job/registry.js';
import type { Schedule } from '../../schedule/definition.js';
import { consoleLogger, type LogLevel } from '../../observability/logging/logger.js';
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

/** {@link CONNECTION_OPTIONS} in a synopsis line. */
export const CONNECTION_SYNOPSIS =
  '[--database-url URL | --data-dir DIR] [--schema NAME] [--module FILE]';

/** Usage lines of {@link CONNECTION_OPTIONS}. */
export const CONNECTION_USAGE = `  --database-url URL   PostgreSQL (default: CHOKAQ_DATABASE_URL)
  --data-dir DIR       an existing embedded store folder, not open in another process
                       (default: CHOKAQ_DATA_DIR, else ./.chokaq)
  --schema NAME        schema holding ChokaQ's tables (default: chokaq)
  --module FILE        your worker module: its job definitions check edited payloads, its
                       schedules make the payloads of triggered ones`;

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
  const declared = values.module === undefined ? {} : await moduleOptions(values.module, io);
  const connection = connectionFrom(values, io.env);
  requireExistingStore(connection);
  io.stderr.write(`chokaq: ${describeConnection(connection)}\n`);
  const chokaq = new ChokaQ({
    // Operator commands never create or migrate a schema: a typo in --schema is an error.
    storage: await openStore(connection, logger, 'check'),
    jobs: declared.jobs ?? [],
    // The module's schedules let `schedules trigger` make payloads with their functions; a
    // session that starts (bulk actions) leaves them out, so it never saves them.
    ...(options.runsBulk ? {} : { schedules: declared.schedules ?? [] }),
    logger,
    worker: options.runsBulk,
    // No queue of the user's: every worker serves the operator queue besides its own.
    workerQueues: [],
    concurrency: 1,
  });
  if (options.runsBulk) await chokaq.start();
  return chokaq;
}

/** The job definitions and schedules a worker module declares. */
async function moduleOptions(
  path: string,
  io: CliIo,
): Promise<{ jobs?: readonly AnyJobDefinition[]; schedules?: readonly Schedule[] }> {
  const exported = await loadWorkerModule(path, io.env);
  if (typeof exported !== 'object' || exported === null || isChokaQ(exported)) {
    throw new CliError(`--module ${path} must default-export ChokaQ options with 'jobs'`);
  }
  return exported;
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
