import { randomBytes } from 'node:crypto';
import { ChokaQ } from '../../chokaq.js';
import type { EnqueueItem } from '../../enqueue/options.js';
import { consoleLogger, type LogLevel } from '../../observability/logging/logger.js';
import type { QueueStats } from '../../storage/model.js';
import { connectionFrom, describeConnection, openStore } from '../connection.js';
import { offerSignInLinks, portFlag, serveDeck, signInHelp } from '../deck-server.js';
import {
  PAUSED_SAMPLE_SCHEDULE,
  SAMPLE_MIX,
  SAMPLE_SCHEDULES,
  sampleJobFor,
  slowJob,
  type SamplePayload,
} from '../demo/sample-jobs.js';
import { jobsAtStep, STEPS_PER_SECOND } from '../demo/pace.js';
import { CliError, type CliIo } from '../io.js';
import { parseFlags } from '../args.js';
import { synopsis } from '../usage.js';
import type { JobState } from '../../job/state.js';

/** Usage text of `chokaq demo`. */
export const DEMO_USAGE = `${synopsis('chokaq demo [--headless [--jobs N] [--timeout SEC]] [--rate N] [--port N] [--concurrency N] [--data-dir DIR | --database-url URL] [--schema NAME]')}

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
  const { values } = parseFlags({
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
    storage: await openStore(connection, logger, 'migrate'),
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

/**
 * Enqueues `jobs` sample jobs tagged with this run's own tag, waits until every one of them has
 * settled, and prints the summary of those jobs only: jobs of earlier runs in the same store
 * (still waiting, or settling meanwhile) are not counted.
 */
async function runHeadless(
  chokaq: ChokaQ,
  jobs: number,
  timeoutMs: number,
  io: CliIo,
): Promise<number> {
  const tag = `demo-run-${randomBytes(4).toString('hex')}`;
  for (let start = 0; start < jobs; start += 1000) {
    await enqueueSamples(chokaq, start, Math.min(jobs, start + 1000), { tags: tag });
  }
  io.stderr.write(`enqueued ${jobs} jobs tagged ${tag}\n`);
  const deadline = Date.now() + timeoutMs;
  let lastPrint = 0;
  for (;;) {
    const now = await runTotals(chokaq, tag);
    const settled = now.succeeded + now.failed;
    if (Date.now() - lastPrint >= 1000 || now.hot === 0) {
      io.stderr.write(`settled ${settled}/${jobs}, hot ${now.hot}\n`);
      lastPrint = Date.now();
    }
    if (now.hot === 0) {
      printSummary(io, jobs, now);
      return 0;
    }
    if (Date.now() > deadline) {
      io.stderr.write(`timed out after ${timeoutMs / 1000} s with ${now.hot} jobs unsettled\n`);
      printSummary(io, jobs, now);
      return 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * The jobs tagged `tag`: succeeded, dead and still hot. The hot ones are counted first: a job
 * settling between two counts read at once could be in neither, and the last totals (none hot,
 * so none moving) would then fall short of the jobs enqueued.
 */
async function runTotals(chokaq: ChokaQ, tag: string): Promise<Totals> {
  const count = async (state: JobState[]) => (await chokaq.jobs.count({ tags: tag, state })).count;
  const hot = await count(['awaiting', 'scheduled', 'pending', 'fetched', 'processing']);
  const [succeeded, failed] = await Promise.all([count(['succeeded']), count(['dead'])]);
  return { succeeded, failed, hot };
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
    signInHelp: signInHelp('chokaq demo'),
  });
  io.stdout.write(`The Deck: ${deck.url}\n`);
  // Fresh sign-in links on Enter or SIGUSR2 while the demo runs; ends with it.
  const links = new AbortController();
  const offered = offerSignInLinks(deck, io, links.signal);
  try {
    for (const schedule of SAMPLE_SCHEDULES)
      await chokaq.schedules.add(schedule, { actor: 'demo' });
    await chokaq.schedules.pause(PAUSED_SAMPLE_SCHEDULE, {
      actor: 'demo',
      reason: 'a paused sample',
    });
    return await enqueueUntilStopped(chokaq, rate, io, stopSignal);
  } finally {
    links.abort();
    await offered;
    await deck.close();
  }
}

/**
 * Enqueues `rate` jobs a second, spread over each second (see `demo/pace.ts`), with slow jobs of
 * 0.3–1.9 s, so The Deck always has jobs running; prints the totals once a second.
 */
async function enqueueUntilStopped(
  chokaq: ChokaQ,
  rate: number,
  io: CliIo,
  stopSignal?: AbortSignal,
): Promise<number> {
  io.stderr.write(`enqueueing about ${rate} jobs/s; press Ctrl-C to stop\n`);
  const before = totals(await chokaq.queues.stats());
  let next = 0;
  for (let step = 0; !stopSignal?.aborted; step = (step + 1) % STEPS_PER_SECOND) {
    const count = jobsAtStep(rate, step);
    await enqueueSamples(chokaq, next, next + count, { live: true });
    next += count;
    if (step === STEPS_PER_SECOND - 1) {
      const now = totals(await chokaq.queues.stats());
      io.stdout.write(
        `enqueued ${next}  succeeded ${now.succeeded - before.succeeded}  dead ${now.failed - before.failed}  ` +
          `hot ${now.hot}  running ${chokaq.running}\n`,
      );
    }
    await pause(1000 / STEPS_PER_SECOND, stopSignal);
  }
  io.stderr.write('stopping: letting running jobs finish\n');
  return 0;
}

/** Waits `ms`, or less when `signal` aborts; one listener per wait, removed after it. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Enqueues sample jobs `from` to `to` (exclusive), tagged `tags`; `live` makes the slow ones
 * take 0.3–1.9 s, long enough to be seen running, as one of four tenants' jobs with at most
 * three of a tenant at once (so The Deck's Flow control panel has keys to show).
 */
async function enqueueSamples(
  chokaq: ChokaQ,
  from: number,
  to: number,
  options: { tags?: string; live?: boolean },
): Promise<void> {
  const groups = new Map<ReturnType<typeof sampleJobFor>, EnqueueItem<SamplePayload>[]>();
  for (let n = from; n < to; n++) {
    const job = sampleJobFor(n);
    const items = groups.get(job) ?? [];
    const item: EnqueueItem<SamplePayload> =
      options.live && job === slowJob
        ? {
            payload: { n, ms: 300 + (n % 5) * 400 },
            concurrencyKey: `tenant-${n % 4}`,
            concurrencyLimit: 3,
          }
        : { payload: { n } };
    if (options.tags !== undefined) item.tags = options.tags;
    items.push(item);
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
    hot: sum((s) => s.scheduled + s.pending + s.fetched + s.processing),
  };
}

function printSummary(io: CliIo, jobs: number, run: Totals): void {
  const summary = { enqueued: jobs, archived: run.succeeded, dlq: run.failed, hot: run.hot };
  io.stdout.write(`${JSON.stringify(summary)}\n`);
}

function positiveInt(value: string | undefined, flag: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new CliError(`${flag} must be a positive integer, got '${value}'`);
  return n;
}
