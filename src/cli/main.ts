#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { ChokaQError } from '../errors.js';
import { benchIfPresent, BENCH_SYNOPSIS } from './commands/bench-loader.js';
import { demoCommand, DEMO_USAGE } from './commands/demo.js';
import { migrateCommand, MIGRATE_USAGE } from './commands/migrate.js';
import { workerCommand, WORKER_USAGE } from './commands/worker.js';
import { CliError, type CliIo } from './io.js';

const USAGE = `Usage: chokaq <command> [options]

Commands:
  bench      compare ChokaQ with pg-boss and graphile-worker on the same PostgreSQL
  demo       run sample jobs on the embedded store (no server needed)
  migrate    apply schema migrations
  worker     run a worker for your job definitions until SIGTERM/SIGINT

${BENCH_SYNOPSIS}

${DEMO_USAGE}

${MIGRATE_USAGE}

${WORKER_USAGE}
`;

/** Runs the CLI with `argv` (without node and script); resolves to the exit code. */
export async function run(argv: string[], io: CliIo, stopSignal?: AbortSignal): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'bench':
        return await benchIfPresent(rest, io);
      case 'demo':
        return await demoCommand(rest, io, stopSignal);
      case 'migrate':
        return await migrateCommand(rest, io);
      case 'worker':
        return await workerCommand(rest, io, stopSignal);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.stdout.write(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new CliError(`unknown command '${command}'; run 'chokaq help'`);
    }
  } catch (error) {
    const code = error instanceof ChokaQError ? ` (${error.code})` : '';
    io.stderr.write(`chokaq: ${error instanceof Error ? error.message : String(error)}${code}\n`);
    return error instanceof CliError ? error.exitCode : 1;
  }
}

// npm links the bin, so compare real paths to know whether this file is the entry point.
const entry = process.argv[1];
const isMain = entry !== undefined && pathToFileURL(realpathSync(entry)).href === import.meta.url;
if (isMain) {
  const controller = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    // The first signal stops gracefully; a second one means "now".
    if (controller.signal.aborted) process.exit(signal === 'SIGINT' ? 130 : 143);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env };
  process.exitCode = await run(process.argv.slice(2), io, controller.signal);
}
