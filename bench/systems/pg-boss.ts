/**
 * pg-boss under test (loaded with `import()`, so the bench runs without it), in two rows:
 *
 * - `pg-boss` — its defaults: `work()` with `localConcurrency` = the row's concurrency and nothing
 *   else (one job per fetch, a fetch every 2 s per worker).
 * - `pg-boss-batch500` — the settings of its docs for throughput and latency: `batchSize: 500`
 *   with the same `localConcurrency`, `burstWhenBatchFull` (fetch again at once while batches come
 *   back full), LISTEN/NOTIFY (`useListenNotify` and a `notify` queue), and the smallest polling
 *   intervals it accepts (0.5 s).
 *
 * W8's cap is its `groupConcurrency` over one group that every job belongs to.
 */
import type { PgBoss as PgBossType, WorkOptions } from 'pg-boss';
import type pg from 'pg';
import type { SystemName } from '../contenders.js';
import { adminPool, count, dropSchema } from '../db.js';
import type { BenchJob, JobSink } from '../types.js';
import {
  isModuleNotFound,
  MissingPeerError,
  runJob,
  type AdapterOptions,
  type QueueSetup,
  type SystemAdapter,
  type WorkerSetup,
  type WorkerSide,
} from './adapter.js';

const SCHEMA = 'bench_pgboss';
const QUEUE = 'bench';
/** The one group of W8's jobs, capped by `groupConcurrency`. */
const GROUP = 'bench';
/** Jobs fetched per round trip in the tuned row. */
const PGBOSS_BATCH_SIZE = 500;
/** The smallest polling interval pg-boss accepts, used by the tuned row. */
const PGBOSS_MIN_POLLING_SECONDS = 0.5;
/** pg-boss's default polling interval (the defaults row's). */
const PGBOSS_DEFAULT_POLLING_SECONDS = 2;

type PgBossClass = typeof PgBossType;

async function loadPgBoss(): Promise<PgBossClass> {
  try {
    return (await import('pg-boss')).PgBoss;
  } catch (error) {
    if (isModuleNotFound(error)) throw new MissingPeerError('pg-boss');
    throw error;
  }
}

/** The pg-boss adapter of one row. */
export class PgBossAdapter implements SystemAdapter {
  readonly inProcessWorkers = false;
  readonly settings: Readonly<Record<string, string>>;
  private readonly tuned: boolean;
  private boss: PgBossType | undefined;
  private pool: pg.Pool | undefined;
  private seededArchive = 0;
  private seededDead = 0;
  private queue: QueueSetup = {};

  private constructor(
    readonly system: Extract<SystemName, `pg-boss${string}`>,
    private readonly PgBoss: PgBossClass,
    private readonly options: AdapterOptions,
  ) {
    this.tuned = system === 'pg-boss-batch500';
    this.settings = {
      work: this.tuned
        ? `work('${QUEUE}', { localConcurrency: C, batchSize: ${PGBOSS_BATCH_SIZE}, burstWhenBatchFull: true, pollingIntervalSeconds: ${PGBOSS_MIN_POLLING_SECONDS}, notifyPollingIntervalSeconds: ${PGBOSS_MIN_POLLING_SECONDS} }, handler)`
        : `work('${QUEUE}', { localConcurrency: C }, handler): batchSize 1, pollingIntervalSeconds ${PGBOSS_DEFAULT_POLLING_SECONDS} (defaults)`,
      concurrency:
        'C = localConcurrency, the row’s concurrency (each worker fetches and runs one batch at a time)',
      handler: 'runs the batch, returns; pg-boss completes the whole batch in one call',
      constructor: `{ connectionString, schema: '${SCHEMA}', schedule: false${this.tuned ? ', useListenNotify: true' : ''} } (pool max default 10); the enqueue client also supervise: false`,
      queue: `createQueue('${QUEUE}'${this.tuned ? ', { notify: true }' : ''}): standard policy, default retries, expiry and retention (completed jobs stay in the job table)`,
      capped: `W8: every job in group '${GROUP}', work() with groupConcurrency: 3 (its cap across nodes)`,
    };
  }

  /** @throws MissingPeerError when pg-boss is not installed. */
  static async create(
    system: Extract<SystemName, `pg-boss${string}`>,
    options: AdapterOptions,
  ): Promise<PgBossAdapter> {
    return new PgBossAdapter(system, await loadPgBoss(), options);
  }

  async reset(queue: QueueSetup = {}): Promise<void> {
    await this.close();
    this.seededArchive = 0;
    this.seededDead = 0;
    this.queue = queue;
    this.pool = adminPool(this.options.databaseUrl);
    await dropSchema(this.pool, SCHEMA);
    const boss = this.newBoss(false);
    await boss.start();
    await boss.createQueue(QUEUE, this.tuned ? { notify: true } : {});
    this.boss = boss;
  }

  async enqueue(job: BenchJob): Promise<void> {
    await this.requireBoss().send(QUEUE, job, this.group());
  }

  async enqueueBulk(jobs: readonly BenchJob[]): Promise<void> {
    await this.requireBoss().insert(
      QUEUE,
      jobs.map((data) => ({ data, ...this.group() })),
    );
  }

  async seedHistory(archive: number, dead: number): Promise<string> {
    const db = this.requirePool();
    // Completed and failed jobs both stay in the job table (the queue's partition) until deleted.
    await db.query(
      `INSERT INTO ${SCHEMA}.job (name, data, state, started_on, completed_on, created_on,
                                  start_after, policy)
       SELECT $2, '{"i":-1,"t":0}'::jsonb, 'completed', now() - interval '3 days',
              now() - interval '3 days' + interval '1 ms', now() - interval '3 days',
              now() - interval '3 days', 'standard'
       FROM generate_series(1, $1::int) AS g`,
      [archive, QUEUE],
    );
    await db.query(
      `INSERT INTO ${SCHEMA}.job (name, data, state, retry_count, started_on, completed_on,
                                  created_on, start_after, output, policy)
       SELECT $2, '{"i":-1,"t":0}'::jsonb, 'failed', 2, now() - interval '1 hour',
              now() - interval '1 hour', now() - interval '1 hour', now() - interval '1 hour',
              '{"message":"history"}'::jsonb, 'standard'
       FROM generate_series(1, $1::int) AS g`,
      [dead, QUEUE],
    );
    await db.query(`VACUUM (ANALYZE) ${SCHEMA}.job`);
    await db.query('CHECKPOINT');
    this.seededDead = dead;
    this.seededArchive = archive;
    return `${archive.toLocaleString('en-US')} completed and ${dead.toLocaleString('en-US')} failed rows in ${SCHEMA}.job (pg-boss 12 keeps both there until its retention deletes them), then VACUUM (ANALYZE) and CHECKPOINT`;
  }

  async analyze(): Promise<void> {
    await this.requirePool().query(`ANALYZE ${SCHEMA}.job, ${SCHEMA}.queue`);
  }

  unsettled(): Promise<number> {
    return count(
      this.requirePool(),
      `SELECT count(*) FROM ${SCHEMA}.job WHERE name = $1 AND state < 'completed'`,
      [QUEUE],
    );
  }

  async finished(): Promise<number> {
    const n = await count(
      this.requirePool(),
      `SELECT count(*) FROM ${SCHEMA}.job WHERE name = $1 AND state = 'completed'`,
      [QUEUE],
    );
    return n - this.seededArchive;
  }

  async failed(): Promise<number> {
    const n = await count(
      this.requirePool(),
      `SELECT count(*) FROM ${SCHEMA}.job WHERE name = $1 AND state IN ('failed', 'cancelled')`,
      [QUEUE],
    );
    return n - this.seededDead;
  }

  async createWorker(setup: WorkerSetup): Promise<WorkerSide> {
    const boss = this.newBoss(true);
    await boss.start();
    const options: WorkOptions = {
      localConcurrency: setup.concurrency,
      ...(this.tuned
        ? {
            batchSize: PGBOSS_BATCH_SIZE,
            burstWhenBatchFull: true,
            pollingIntervalSeconds: PGBOSS_MIN_POLLING_SECONDS,
            notifyPollingIntervalSeconds: PGBOSS_MIN_POLLING_SECONDS,
          }
        : {}),
      ...(setup.maxWorkers === undefined ? {} : { groupConcurrency: setup.maxWorkers }),
    };
    return {
      start: async (sink: JobSink) => {
        await boss.work<BenchJob>(QUEUE, options, async (jobs) => {
          const waits: Promise<void>[] = [];
          for (const job of jobs) {
            const wait = runJob(sink, job.data, setup.jobMs);
            if (wait !== undefined) waits.push(wait);
          }
          await Promise.all(waits);
        });
      },
      stop: async () => {
        await boss.offWork(QUEUE, { wait: true });
        await boss.stop({ graceful: true, timeout: 10_000 });
      },
    };
  }

  async close(): Promise<void> {
    const boss = this.boss;
    this.boss = undefined;
    await boss?.stop({ graceful: false });
    await this.pool?.end();
    this.pool = undefined;
  }

  /** The send options of a job: W8's jobs all belong to one capped group. */
  private group(): { group?: { id: string } } {
    return this.queue.maxWorkers === undefined ? {} : { group: { id: GROUP } };
  }

  private newBoss(worker: boolean): PgBossType {
    const boss = new this.PgBoss({
      connectionString: this.options.databaseUrl,
      schema: SCHEMA,
      schedule: false,
      ...(this.tuned ? { useListenNotify: true } : {}),
      ...(worker ? {} : { supervise: false }),
    });
    boss.on('error', (error: Error) => {
      process.stderr.write(`pg-boss error: ${error.message}\n`);
    });
    return boss;
  }

  private requireBoss(): PgBossType {
    if (this.boss === undefined) throw new Error('pg-boss: reset() first');
    return this.boss;
  }

  private requirePool(): pg.Pool {
    if (this.pool === undefined) throw new Error('pg-boss: reset() first');
    return this.pool;
  }
}
