import { parseArgs } from 'node:util';
import { ChokaQ } from '../../chokaq.js';
import { consoleLogger, type LogLevel } from '../../observability/logger.js';
import type { QueueStats } from '../../storage/model.js';
import { connectionFrom, describeConnection, openStore } from '../connection.js';
import { portFlag, serveDeck } from '../deck-server.js';
import {
  PAUSED_SAMPLE_SCHEDULE,
  SAMPLE_MIX,
  SAMPLE_SCHEDULES,
  sampleJobFor,
  type SamplePayload,
} from '../demo/sample-jobs.js';
import { CliError, type CliIo } from '../io.js';

/** Usage text of `chokaq demo`. */
export const DEMO_USAGE = `chokaq demo [--headless --jobs N] [--data-dir DIR | --database-url URL] [--concurrency N]

Runs sample jobs (fast, slow, flaky, throttled, poison) on the embedded store (no server needed),
or on PostgreSQL when --database-url / CHOKAQ_DATABASE_URL is set, and serves The Deck on this
machine with a one-time sign-in link (interactive only).
  --headless           enqueue --jobs jobs, wait until all settled, print a JSON summary, exit
  --port N             The Deck's port (default 4100; 0: any free port)
  --jobs N             jobs to enqueue (headless; default 2000)
  --rate N             new jobs per second while interactive (default 20)
  --concurrency N      jobs run at once (default 32)
  --timeout SEC        headless: give up after this many seconds (default 300)
  --data-dir DIR       embedded store folder, created if missing (default: CHOKAQ_DATA_DIR,
                       else ./.chokaq)
  --database-url URL   PostgreSQL (default: CHOKAQ_DATABASE_URL)
  --schema NAME        schema holding ChokaQ's tables (default: chokaq)`;

const DEMO_QUEUES = new Set(SAMPLE_MIX.map(({ job }) => job.queue));

interface Totals {
  succeeded: number;
  failed: number;
  hot: number;
}

/** `chokaq demo`: the sample workload, interactive or headless. Resolves to the exit code. */
export async function demoCommand(
  args: string[],
  io: CliIo,
  stopSignal?: AbortSignal,
): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      headless: { type: 'boolean', default: false },
      jobs: { type: 'string', default: '2000' },
      rate: { type: 'string', default: '20' },
      concurrency: { type: 'string', default: '32' },
      timeout: { type: 'string', default: '300' },
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      schema: { type: 'string' },
      port: { type: 'string' },
    },
    strict: true,
  });
  const port = portFlag(values.port, 4100);
  const jobs = positiveInt(values.jobs, '--jobs');
  const concurrency = positiveInt(values.concurrency, '--concurrency');
  const rate = positiveInt(values.rate, '--rate');
  const timeoutMs = positiveInt(values.timeout, '--timeout') * 1000;
  const connection = connectionFrom(values, io.env);
  // Sample jobs fail on purpose; only errors of the engine itself are worth printing by default.
  const logger = consoleLogger((io.env.CHOKAQ_LOG_LEVEL as LogLevel | undefined) ?? 'error');
  io.stderr.write(`chokaq demo: ${describeConnection(connection)}, concurrency ${concurrency}\n`);
  const chokaq = new ChokaQ({
    storage: await openStore(connection, logger),
    jobs: SAMPLE_MIX.map(({ job }) => job),
    concurrency,
    pollInterval: 200,
    // Sample jobs fail on purpose; short breaks let the demo show circuits opening and closing
    // while still settling thousands of jobs within seconds.
    circuitBreaker: { failureThreshold: 10, failureWindow: '1s', breakDuration: '1s' },
    circuitBreakerDelay: 200,
    logger,
  });
  await chokaq.start();
  try {
    return values.headless
      ? await runHeadless(chokaq, jobs, timeoutMs, io)
      : await runInteractive(chokaq, rate, port, io, stopSignal);
  } finally {
    await chokaq.stop();
  }
}

async function runHeadless(
  chokaq: ChokaQ,
  jobs: number,
  timeoutMs: number,
  io: CliIo,
): Promise<number> {
  const before = totals(await chokaq.queues.stats());
  for (let start = 0; start < jobs; start += 1000) {
    await enqueueSamples(chokaq, start, Math.min(jobs, start + 1000));
  }
  io.stderr.write(`enqueued ${jobs} jobs\n`);
  const deadline = Date.now() + timeoutMs;
  let now = before;
  let lastPrint = 0;
  for (;;) {
    now = totals(await chokaq.queues.stats());
    const settled = now.succeeded + now.failed - before.succeeded - before.failed;
    if (Date.now() - lastPrint >= 1000) {
      io.stderr.write(`settled ${settled}/${jobs}, hot ${now.hot}\n`);
      lastPrint = Date.now();
    }
    if (settled >= jobs && now.hot === 0) break;
    if (Date.now() > deadline) {
      io.stderr.write(
        `timed out after ${timeoutMs / 1000} s with ${jobs - settled} jobs unsettled\n`,
      );
      printSummary(io, jobs, before, now);
      return 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  printSummary(io, jobs, before, now);
  return 0;
}

async function runInteractive(
  chokaq: ChokaQ,
  rate: number,
  port: number,
  io: CliIo,
  stopSignal?: AbortSignal,
): Promise<number> {
  const deck = await serveDeck(chokaq, {
    host: '127.0.0.1',
    port,
    tokens: [],
    anonymous: 'none',
    environment: 'demo',
  });
  io.stdout.write(`The Deck: ${deck.url}\nSign in (once, within 10 minutes): ${deck.signInUrl}\n`);
  try {
    for (const schedule of SAMPLE_SCHEDULES)
      await chokaq.schedules.add(schedule, { actor: 'demo' });
    await chokaq.schedules.pause(PAUSED_SAMPLE_SCHEDULE, {
      actor: 'demo',
      reason: 'a paused sample',
    });
    return await enqueueUntilStopped(chokaq, rate, io, stopSignal);
  } finally {
    await deck.close();
  }
}

async function enqueueUntilStopped(
  chokaq: ChokaQ,
  rate: number,
  io: CliIo,
  stopSignal?: AbortSignal,
): Promise<number> {
  io.stderr.write(`enqueueing about ${rate} jobs/s; press Ctrl-C to stop\n`);
  const before = totals(await chokaq.queues.stats());
  let next = 0;
  while (!stopSignal?.aborted) {
    await enqueueSamples(chokaq, next, next + rate);
    next += rate;
    const now = totals(await chokaq.queues.stats());
    io.stdout.write(
      `enqueued ${next}  succeeded ${now.succeeded - before.succeeded}  dead ${now.failed - before.failed}  ` +
        `hot ${now.hot}  running ${chokaq.running}\n`,
    );
    // One listener per wait, removed after it, so a long demo does not pile them up.
    await new Promise<void>((resolve) => {
      const onAbort = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        stopSignal?.removeEventListener('abort', onAbort);
        resolve();
      }, 1000);
      stopSignal?.addEventListener('abort', onAbort, { once: true });
    });
  }
  io.stderr.write('stopping: letting running jobs finish\n');
  return 0;
}

async function enqueueSamples(chokaq: ChokaQ, from: number, to: number): Promise<void> {
  const groups = new Map<ReturnType<typeof sampleJobFor>, { payload: SamplePayload }[]>();
  for (let n = from; n < to; n++) {
    const job = sampleJobFor(n);
    const items = groups.get(job) ?? [];
    items.push({ payload: { n } });
    groups.set(job, items);
  }
  for (const [job, items] of groups) await chokaq.enqueueMany(job, items);
}

function totals(stats: readonly QueueStats[]): Totals {
  const demo = stats.filter((s) => DEMO_QUEUES.has(s.queue));
  const sum = (pick: (s: QueueStats) => number): number =>
    demo.reduce((acc, s) => acc + pick(s), 0);
  return {
    succeeded: sum((s) => s.succeededTotal),
    failed: sum((s) => s.failedTotal),
    hot: sum((s) => s.pending + s.fetched + s.processing),
  };
}

function printSummary(io: CliIo, jobs: number, before: Totals, now: Totals): void {
  const summary = {
    enqueued: jobs,
    archived: now.succeeded - before.succeeded,
    dlq: now.failed - before.failed,
    hot: now.hot,
  };
  io.stdout.write(`${JSON.stringify(summary)}\n`);
}

function positiveInt(value: string | undefined, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new CliError(`${flag} must be a positive integer, got '${value}'`);
  return n;
}
