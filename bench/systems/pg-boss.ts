/**
 * pg-boss under test (loaded with `import()`, so the bench runs without it). Settings
 * follow its docs for throughput: `work()` fetches `batchSize: 500` jobs per round trip, polls at
 * the smallest interval it accepts (0.5 s; pg-boss 10 has no LISTEN/NOTIFY wake-up), and — since
 * each `work()` call adds one polling worker that handles one batch at a time — `concurrency`
 * workers per process.
 */
import type PgBossType from 'pg-boss';
import type pg from 'pg';
import { adminPool, count, dropSchema } from '../db.js';
import type { BenchJob, JobSink } from '../types.js';
import {
  isModuleNotFound,
  MissingPeerError,
  type AdapterOptions,
  type SystemAdapter,
  type WorkerSide,
} from './adapter.js';

const SCHEMA = 'bench_pgboss';
const QUEUE = 'bench';
/** Jobs fetched per round trip (the "best documented" setting). */
export const PGBOSS_BATCH_SIZE = 500;
/** pg-boss 10's smallest polling interval. */
export const PGBOSS_POLLING_SECONDS = 0.5;

type PgBossClass = typeof PgBossType;

async function loadPgBoss(): Promise<PgBossClass> {
  try {
    const mod = (await import('pg-boss')) as unknown as { default: PgBossClass };
    return mod.default;
  } catch (error) {
    if (isModuleNotFound(error)) throw new MissingPeerError('pg-boss');
    throw error;
  }
}

/** Version of the installed pg-boss, or `undefined`. */
export async function pgBossVersion(): Promise<string | undefined> {
  try {
    const { createRequire } = await import('node:module');
    const require = createRequire(import.meta.url);
    return (require('pg-boss/package.json') as { version: string }).version;
  } catch {
    return undefined;
  }
}

/** The pg-boss adapter. */
export class PgBossAdapter implements SystemAdapter {
  readonly system = 'pg-boss' as const;
  readonly inProcessWorkers = false;
  readonly settings: Readonly<Record<string, string>>;
  private boss: PgBossType | undefined;
  private pool: pg.Pool | undefined;
  private seededDead = 0;

  private constructor(
    private readonly PgBoss: PgBossClass,
    private readonly options: AdapterOptions,
  ) {
    this.settings = {
      workers: `${options.concurrency} work() calls per process (each call adds one polling worker that runs one batch at a time)`,
      batchSize: String(PGBOSS_BATCH_SIZE),
      pollingIntervalSeconds: `${PGBOSS_POLLING_SECONDS} (the minimum pg-boss 10 accepts; it has no LISTEN/NOTIFY)`,
      handler: 'runs the batch, returns; pg-boss completes the whole batch in one call',
      constructor: `{ connectionString, schema: '${SCHEMA}', schedule: false } (pool max default 10); the enqueue client also supervise: false`,
      queue: `createQueue('${QUEUE}') with the default (standard) policy; defaults for retries, expiry, retention (completed jobs kept 12 h, then archived)`,
    };
  }

  /** @throws MissingPeerError when pg-boss is not installed. */
  static async create(options: AdapterOptions): Promise<PgBossAdapter> {
    return new PgBossAdapter(await loadPgBoss(), options);
  }

  async reset(): Promise<void> {
    await this.close();
    this.seededDead = 0;
    this.pool = adminPool(this.options.databaseUrl);
    await dropSchema(this.pool, SCHEMA);
    const boss = this.newBoss(false);
    await boss.start();
    await boss.createQueue(QUEUE);
    this.boss = boss;
  }

  async enqueue(job: BenchJob): Promise<void> {
    await this.requireBoss().send(QUEUE, job);
  }

  async enqueueBulk(jobs: readonly BenchJob[]): Promise<void> {
    await this.requireBoss().insert(jobs.map((data) => ({ name: QUEUE, data })));
  }

  async seedHistory(archive: number, dead: number): Promise<string> {
    const db = this.requirePool();
    // The archive is `LIKE job` without defaults: every NOT NULL column is given.
    await db.query(
      `INSERT INTO ${SCHEMA}.archive (id, name, priority, data, state, retry_limit, retry_count,
                                      retry_delay, retry_backoff, start_after, started_on,
                                      expire_in, created_on, completed_on, keep_until, policy,
                                      archived_on)
       SELECT gen_random_uuid(), $2, 0, '{"i":-1,"t":0}'::jsonb, 'completed', 2, 0, 0, false,
              now() - interval '3 days', now() - interval '3 days', interval '15 minutes',
              now() - interval '3 days', now() - interval '3 days' + interval '1 ms',
              now() + interval '11 days', 'standard', now() - interval '2 days'
       FROM generate_series(1, $1::int) AS g`,
      [archive, QUEUE],
    );
    // Failed jobs stay in the job table (the queue's partition) until archived.
    await db.query(
      `INSERT INTO ${SCHEMA}.job (name, data, state, retry_count, started_on, completed_on,
                                  created_on, start_after, output, policy)
       SELECT $2, '{"i":-1,"t":0}'::jsonb, 'failed', 2, now() - interval '1 hour',
              now() - interval '1 hour', now() - interval '1 hour', now() - interval '1 hour',
              '{"message":"history"}'::jsonb, 'standard'
       FROM generate_series(1, $1::int) AS g`,
      [dead, QUEUE],
    );
    await db.query(`VACUUM (ANALYZE) ${SCHEMA}.archive, ${SCHEMA}.job`);
    await db.query('CHECKPOINT');
    this.seededDead = dead;
    return `${archive.toLocaleString('en-US')} completed rows in ${SCHEMA}.archive; ${dead.toLocaleString('en-US')} failed rows in ${SCHEMA}.job (where pg-boss keeps failed jobs until archiving), then VACUUM (ANALYZE) and CHECKPOINT`;
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

  finished(): Promise<number> {
    return count(
      this.requirePool(),
      `SELECT count(*) FROM ${SCHEMA}.job WHERE name = $1 AND state = 'completed'`,
      [QUEUE],
    );
  }

  async failed(): Promise<number> {
    const n = await count(
      this.requirePool(),
      `SELECT count(*) FROM ${SCHEMA}.job WHERE name = $1 AND state IN ('failed', 'cancelled')`,
      [QUEUE],
    );
    return n - this.seededDead;
  }

  async createWorker(): Promise<WorkerSide> {
    const boss = this.newBoss(true);
    await boss.start();
    let ids: string[] = [];
    return {
      start: async (sink: JobSink) => {
        const work = (): Promise<string> =>
          boss.work<BenchJob>(
            QUEUE,
            { batchSize: PGBOSS_BATCH_SIZE, pollingIntervalSeconds: PGBOSS_POLLING_SECONDS },
            (jobs) => {
              for (const job of jobs) sink(job.data);
              return Promise.resolve();
            },
          );
        ids = await Promise.all(Array.from({ length: this.options.concurrency }, work));
      },
      stop: async () => {
        await Promise.all(ids.map((id) => boss.offWork({ id })));
        await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
      },
    };
  }

  async close(): Promise<void> {
    const boss = this.boss;
    this.boss = undefined;
    await boss?.stop({ graceful: false, wait: true });
    await this.pool?.end();
    this.pool = undefined;
  }

  private newBoss(worker: boolean): PgBossType {
    const boss = new this.PgBoss({
      connectionString: this.options.databaseUrl,
      schema: SCHEMA,
      schedule: false,
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
