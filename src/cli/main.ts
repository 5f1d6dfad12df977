#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { ChokaQError } from '../errors.js';
import { deckCommand, DECK_USAGE } from './commands/deck.js';
import { demoCommand, DEMO_USAGE } from './commands/demo.js';
import { dlqCommand, DLQ_USAGE } from './commands/dlq.js';
import { jobsCommand, JOBS_USAGE } from './commands/jobs.js';
import { migrateCommand, MIGRATE_USAGE } from './commands/migrate.js';
import { purgeCommand, PURGE_USAGE } from './commands/purge.js';
import { schedulesCommand, SCHEDULES_USAGE } from './commands/schedules.js';
import { statusCommand, STATUS_USAGE } from './commands/status.js';
import { workerCommand, WORKER_USAGE } from './commands/worker.js';
import { CliError, type CliIo } from './io.js';
import { packageVersion } from '../version.js';
import { FlagError } from './args.js';
import { inFlagTerms } from './flag-names.js';
import { didYouMean } from './suggest.js';

/** One `chokaq <command>`. */
interface Command {
  /** One line for the command list. */
  summary: string;
  /** What `chokaq <command> --help` prints. */
  usage: string;
  run(args: string[], io: CliIo, stopSignal?: AbortSignal): Promise<number>;
}

const COMMANDS = new Map<string, Command>([
  [
    'deck',
    {
      summary: 'serve The Deck, the operator dashboard, with a sign-in link',
      usage: DECK_USAGE,
      run: deckCommand,
    },
  ],
  [
    'demo',
    {
      summary: 'run sample jobs on the embedded store (no server needed)',
      usage: DEMO_USAGE,
      run: demoCommand,
    },
  ],
  [
    'dlq',
    {
      summary: 'DLQ error groups, list, resurrect, purge and edit, with a preview',
      usage: DLQ_USAGE,
      run: dlqCommand,
    },
  ],
  [
    'jobs',
    {
      summary: 'list jobs wherever they are, show one with its timeline, or its workflow',
      usage: JOBS_USAGE,
      run: (args, io) => jobsCommand(args, io),
    },
  ],
  [
    'migrate',
    {
      summary: 'apply schema migrations',
      usage: MIGRATE_USAGE,
      run: (args, io) => migrateCommand(args, io),
    },
  ],
  [
    'purge',
    {
      summary: 'delete rows past their retention now, with a preview',
      usage: PURGE_USAGE,
      run: purgeCommand,
    },
  ],
  [
    'schedules',
    {
      summary: 'recurring jobs with next and last run; pause, resume, trigger',
      usage: SCHEDULES_USAGE,
      run: (args, io) => schedulesCommand(args, io),
    },
  ],
  [
    'status',
    {
      summary: 'queues, lag, throughput, error groups and workers alive (--watch)',
      usage: STATUS_USAGE,
      run: statusCommand,
    },
  ],
  [
    'worker',
    {
      summary: 'run a worker for your job definitions until SIGTERM/SIGINT',
      usage: WORKER_USAGE,
      run: workerCommand,
    },
  ],
]);

const USAGE = `Usage: chokaq <command> [options]

Commands:
${[...COMMANDS].map(([name, command]) => `  ${name.padEnd(9)}  ${command.summary}`).join('\n')}

Options:
  -h, --help     print this help, or with a command that command's options
  -v, --version  print the version

Run 'chokaq <command> --help' (or 'chokaq help <command>') for a command's options.
`;

/** Runs the CLI with `argv` (without node and script); resolves to the exit code. */
export async function run(argv: string[], io: CliIo, stopSignal?: AbortSignal): Promise<number> {
  const [name, ...rest] = argv;
  try {
    switch (name) {
      case undefined:
        io.stderr.write(USAGE);
        return 2;
      case '--version':
      case '-v':
        io.stdout.write(`${packageVersion()}\n`);
        return 0;
      case 'help':
      case '--help':
      case '-h':
        io.stdout.write(rest[0] === undefined ? USAGE : `${commandNamed(rest[0]).usage}\n`);
        return 0;
    }
    const command = commandNamed(name);
    if (asksForHelp(rest)) {
      io.stdout.write(`${command.usage}\n`);
      return 0;
    }
    try {
      return await command.run(rest, io, stopSignal);
    } catch (error) {
      throw argumentError(error, name) ?? inFlagTerms(error);
    }
  } catch (error) {
    const code = error instanceof ChokaQError ? ` (${error.code})` : '';
    io.stderr.write(`chokaq: ${error instanceof Error ? error.message : String(error)}${code}\n`);
    return error instanceof CliError ? error.exitCode : 1;
  }
}

function commandNamed(name: string): Command {
  const command = COMMANDS.get(name);
  if (command === undefined)
    throw new CliError(
      `unknown command '${name}'${didYouMean(name, COMMANDS.keys())}; run 'chokaq help'`,
    );
  return command;
}

/** `--help` or `-h` before any `--` (after it, arguments are positional). */
function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/** A flag error (unknown option, missing value, …) as one line with a pointer to help. */
function argumentError(error: unknown, command: string): CliError | undefined {
  if (!(error instanceof FlagError)) return undefined;
  return new CliError(`${error.message}; run 'chokaq ${command} --help'`);
}

/**
 * The next line of standard input, `null` at its end or once `signal` aborts; stdin is released
 * afterwards.
 */
async function readStdinLine(signal?: AbortSignal): Promise<string | null> {
  if (signal?.aborted === true) return null;
  const lines = createInterface({ input: process.stdin, terminal: false });
  const abort = () => lines.close();
  signal?.addEventListener('abort', abort, { once: true });
  try {
    for await (const line of lines) return line;
    return null;
  } finally {
    signal?.removeEventListener('abort', abort);
    lines.close();
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
  const io: CliIo = {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    readLine: readStdinLine,
  };
  process.exitCode = await run(process.argv.slice(2), io, controller.signal);
}
