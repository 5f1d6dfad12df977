/**
 * ChokaQ under test, on both providers. Users' settings: a typed job definition, the row's
 * concurrency, default prefetch (auto), default poll interval, pool, batching and notify debounce.
 * Imported by the package's own name only, which resolves through its `exports` to the built
 * dist/, as an installed package would.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { ChokaQ, consoleLogger, defineJob, type ChokaQOptions } from 'chokaq';
import { embedded } from 'chokaq/embedded';
import { postgres } from 'chokaq/postgres';
import { adminPool, count, dropSchema } from '../db.js';
import type { SystemName } from '../contenders.js';
import type { BenchJob, JobSink } from '../types.js';
import {
  runJob,
  type AdapterOptions,
  type FlowSide,
  type OperatorSide,
  type QueueSetup,
  type SystemAdapter,
  type WorkerSetup,
  type WorkerSide,
} from './adapter.js';
import { ChokaQOperatorSide } from './chokaq-operator.js';

/** Schema of ChokaQ's tables in the bench database / embedded store. */
const SCHEMA = 'bench_chokaq';
const QUEUE = 'bench';
const TYPE = 'bench.noop';
/** W10's fan-in job type (see bench/workloads/w10-flow.ts). */
const FAN_IN_TYPE = 'bench.fanin';
/** The concurrency limit of every key in W9 (see bench/workloads/w9-keyed.ts). */
export const KEY_LIMIT = 2;
/** How often the workers of W7's 'on' setting are scraped for Prometheus, in ms. */
const SCRAPE_MS = 1000;
/** `shared_buffers` the embedded provider starts PGlite with (see storage/embedded). */
const EMBEDDED_SHARED_BUFFERS = '16MB';

interface Queryable {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** The ChokaQ adapter for `chokaq-postgres` or `chokaq-embedded`. */
export class ChokaQAdapter implements SystemAdapter {
  readonly inProcessWorkers: boolean;
  readonly settings: Readonly<Record<string, string>>;
  readonly operator: OperatorSide = new ChokaQOperatorSide(
    SCHEMA,
    () => this.db(),
    () => this.requireClient(),
  );
  private sink: JobSink = () => undefined;
  private jobMs = 0;
  private readonly job = defineJob<BenchJob>({
    type: TYPE,
    queue: QUEUE,
    // W9's jobs carry a key; every other workload's carry none.
    concurrencyKey: (payload) => payload.k ?? null,
    handle: (payload) => runJob(this.sink, payload, this.jobMs),
  });
  /**
   * W10's fan-in job: runs once its flow's children finished and reads them. Its start is
   * recorded first, then it fails unless it read `d` dependencies, every one succeeded.
   */
  private readonly fanIn = defineJob<BenchJob>({
    type: FAN_IN_TYPE,
    queue: QUEUE,
    handle: async (payload, ctx) => {
      this.sink(payload);
      const dependencies = await ctx.dependencies();
      const succeeded = dependencies.filter((d) => d.state === 'succeeded').length;
      if (dependencies.length !== payload.d || succeeded !== payload.d) {
        throw new Error(
          `fan-in job ${payload.i} read ${dependencies.length} dependencies (${succeeded} succeeded), expected ${payload.d}`,
        );
      }
    },
  });
  readonly flows: FlowSide = {
    enqueueFlow: async (children, fanIn) => {
      await this.requireClient().enqueueWorkflow((workflow) => {
        const dependsOn = children.map((payload) => workflow.add(this.job, payload));
        workflow.add(this.fanIn, { ...fanIn, d: children.length }, { dependsOn });
      });
    },
  };
  private client: ChokaQ | undefined;
  private pool: pg.Pool | undefined;
  private pglite: PGlite | undefined;
  private seededArchive = 0;
  private seededDead = 0;

  constructor(
    readonly system: Extract<SystemName, `chokaq-${string}`>,
    private readonly options: AdapterOptions,
  ) {
    this.inProcessWorkers = system === 'chokaq-embedded';
    this.settings = {
      concurrency:
        system === 'chokaq-postgres-c128'
          ? '128 (the drain batch grows with it; see docs/benchmarks.md)'
          : "the run's (32; the sweep's 1, 8, 32, 128)",
      prefetch: "default ('auto': ~100 ms of work, at most 500 beyond the free slots)",
      pollInterval: 'default (1s; wake-ups by NOTIFY, debounced per queue)',
      storage:
        system !== 'chokaq-embedded'
          ? `postgres({ connectionString, schema: '${SCHEMA}' }), default poolSize 10`
          : `embedded() on a PGlite instance in a fresh temp data dir (shared_buffers ${EMBEDDED_SHARED_BUFFERS}, as the provider starts it)`,
      job: `defineJob({ type: '${TYPE}', queue: '${QUEUE}', concurrencyKey: (p) => p.k ?? null }) without a schema (only W9's jobs have a key, each enqueued with concurrencyLimit ${KEY_LIMIT}); ${system === 'chokaq-postgres-nohistory' ? `queues: { ${QUEUE}: { keepSucceeded: false } }: succeeded jobs counted, not archived` : 'every finished job kept in the archive'}`,
      flows: `W10: one chokaq.enqueueWorkflow per flow: its '${TYPE}' children, then a '${FAN_IN_TYPE}' job in the same queue with dependsOn all of them, whose handler reads ctx.dependencies()`,
      logger: "consoleLogger('error')",
      capped: 'W8: queues: { bench: { maxWorkers: 3 } } on every process',
    };
  }

  async reset(queue: QueueSetup = {}): Promise<void> {
    await this.close();
    this.seededArchive = 0;
    this.seededDead = 0;
    if (this.system !== 'chokaq-embedded') {
      this.pool = adminPool(this.options.databaseUrl);
      await dropSchema(this.pool, SCHEMA);
    } else {
      rmSync(this.options.dataDir, { recursive: true, force: true });
      mkdirSync(this.options.dataDir, { recursive: true });
      this.pglite = await PGlite.create({
        dataDir: this.options.dataDir,
        startParams: [
          ...PGlite.defaultStartParams,
          '-c',
          `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`,
        ],
      });
    }
    // enqueue-only: workers run only in createWorker()
    this.client = this.engine(
      { concurrency: 1, jobMs: 0, observability: 'default', ...queue },
      false,
    );
    await this.client.start(); // opens storage and migrates
  }

  async enqueue(job: BenchJob): Promise<void> {
    await this.requireClient().enqueue(this.job, job);
  }

  async enqueueBulk(jobs: readonly BenchJob[]): Promise<void> {
    await this.requireClient().enqueueMany(
      this.job,
      jobs.map((payload) =>
        payload.k === undefined ? { payload } : { payload, concurrencyLimit: KEY_LIMIT },
      ),
    );
  }

  async seedHistory(archive: number, dead: number): Promise<string> {
    const db = this.db();
    await db.query(
      `INSERT INTO ${SCHEMA}.jobs_archive (id, queue, type, payload, attempts, worker_id,
                                           created_at, started_at, finished_at, duration_ms)
       SELECT '00000000-0000-7000-8000-' || lpad(g::text, 12, '0'), $2, $3, '{"i":-1,"t":0}', 1,
              'history', now() - interval '3 days' + g * interval '100 ms',
              now() - interval '3 days' + g * interval '100 ms',
              now() - interval '3 days' + g * interval '100 ms' + interval '1 ms', 1
       FROM generate_series(1, $1::int) AS g`,
      [archive, QUEUE, TYPE],
    );
    await db.query(
      `INSERT INTO ${SCHEMA}.jobs_dlq (id, queue, type, payload, failure_reason, error_details,
                                       attempts, worker_id, created_at, failed_at)
       SELECT '00000000-0000-7000-9000-' || lpad(g::text, 12, '0'), $2, $3, '{"i":-1,"t":0}', 8,
              'Error: history', 3, 'history', now() - interval '3 days' + g * interval '1 s',
              now() - interval '3 days' + g * interval '1 s' + interval '1 s'
       FROM generate_series(1, $1::int) AS g`,
      [dead, QUEUE, TYPE],
    );
    await db.query(
      `VACUUM (ANALYZE) ${SCHEMA}.jobs_archive, ${SCHEMA}.jobs_dlq, ${SCHEMA}.jobs_hot`,
    );
    await db.query('CHECKPOINT');
    this.seededArchive = archive;
    this.seededDead = dead;
    return `${archive.toLocaleString('en-US')} rows in ${SCHEMA}.jobs_archive, ${dead.toLocaleString('en-US')} in ${SCHEMA}.jobs_dlq (one INSERT … SELECT generate_series each), then VACUUM (ANALYZE) and CHECKPOINT`;
  }

  async analyze(): Promise<void> {
    // job_dependencies holds W10's edges (empty elsewhere): without statistics the dependency
    // reads plan seq scans of it, which a live system's autovacuum would not leave in place.
    await this.db().query(
      `ANALYZE ${SCHEMA}.jobs_hot, ${SCHEMA}.queues, ${SCHEMA}.job_dependencies`,
    );
  }

  unsettled(): Promise<number> {
    return count(this.db(), `SELECT count(*) FROM ${SCHEMA}.jobs_hot`);
  }

  /** Archived jobs of the run; without archive rows, the succeeded counter (it must be exact). */
  async finished(): Promise<number> {
    if (this.system === 'chokaq-postgres-nohistory') {
      return count(
        this.db(),
        `SELECT coalesce(sum(succeeded_total), 0) FROM ${SCHEMA}.stats_summary`,
      );
    }
    return (
      (await count(this.db(), `SELECT count(*) FROM ${SCHEMA}.jobs_archive`)) - this.seededArchive
    );
  }

  async failed(): Promise<number> {
    return (await count(this.db(), `SELECT count(*) FROM ${SCHEMA}.jobs_dlq`)) - this.seededDead;
  }

  async createWorker(setup: WorkerSetup): Promise<WorkerSide> {
    const engine = this.engine(setup, true);
    // Counting into a Prometheus registry starts when its handler is asked for.
    if (setup.observability === 'on') engine.metrics.prometheus();
    await engine.queues.list(); // connect (and check the schema) before "go"
    let scraper: NodeJS.Timeout | undefined;
    return {
      start: async (sink) => {
        this.sink = sink;
        this.jobMs = setup.jobMs;
        await engine.start();
        // 'on' is also scraped once a second, as Prometheus would, so the gauge query is paid for.
        if (setup.observability === 'on') {
          scraper = setInterval(() => void scrape(engine), SCRAPE_MS);
        }
      },
      stop: async () => {
        clearInterval(scraper);
        await engine.stop();
        this.sink = () => undefined;
      },
    };
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    await client?.stop();
    await this.pool?.end();
    this.pool = undefined;
    await this.pglite?.close();
    this.pglite = undefined;
  }

  /** A ChokaQ instance over a new store; with `worker` it runs jobs once started. */
  private engine(setup: WorkerSetup, worker: boolean): ChokaQ {
    const logger = consoleLogger('error');
    let storage: ChokaQOptions['storage'];
    if (this.system !== 'chokaq-embedded') {
      storage = postgres({ connectionString: this.options.databaseUrl, schema: SCHEMA, logger });
    } else {
      // Both engines of the single process share the PGlite instance, as one app's would.
      if (this.pglite === undefined) throw new Error('chokaq-embedded: reset() first');
      storage = embedded({ pglite: this.pglite, schema: SCHEMA, logger });
    }
    return new ChokaQ({
      storage,
      jobs: [this.job, this.fanIn],
      worker,
      concurrency: setup.concurrency,
      logger,
      queues: {
        [QUEUE]: {
          ...(setup.maxWorkers === undefined ? {} : { maxWorkers: setup.maxWorkers }),
          ...(this.system === 'chokaq-postgres-nohistory' ? { keepSucceeded: false } : {}),
        },
      },
      ...(setup.observability === 'off'
        ? { telemetry: { metrics: false }, clusterEvents: false }
        : {}),
    });
  }

  private requireClient(): ChokaQ {
    if (this.client === undefined) throw new Error(`${this.system}: reset() first`);
    return this.client;
  }

  private db(): Queryable {
    const db = this.system === 'chokaq-embedded' ? this.pglite : this.pool;
    if (db === undefined) throw new Error(`${this.system}: reset() first`);
    return db;
  }
}

/** One Prometheus scrape of `engine`; a failed one is reported and the drain goes on. */
async function scrape(engine: ChokaQ): Promise<void> {
  try {
    await engine.metrics.prometheusText();
  } catch (error) {
    console.error(`bench: Prometheus scrape failed: ${String(error)}`);
  }
}
