/**
 * graphile-worker under test (loaded with `import()`, so the bench runs without it), in two rows:
 *
 * - `graphile-worker` — its defaults: `concurrency` = the row's, a pool of its default
 *   `maxPoolSize` (10), no local queue, completions written one by one.
 * - `graphile-worker-batched` — the configuration of its performance page: `maxPoolSize` =
 *   concurrency + 1 (at least 10: with 2 at concurrency 1, two processes stalled), `localQueue:
 *   { size: 500 }`, `completeJobBatchDelay: 0`, `failJobBatchDelay: 0`.
 *
 * It has no cap on the jobs of a queue running at once across processes (a named queue runs its
 * jobs one at a time), so W8 does not apply to it.
 */
import type * as GraphileWorker from 'graphile-worker';
import pg from 'pg';
import type { SystemName } from '../contenders.js';
import { adminPool, count, dropSchema } from '../db.js';
import type { BenchJob, JobSink } from '../types.js';
import {
  isModuleNotFound,
  MissingPeerError,
  runJob,
  type AdapterOptions,
  type SystemAdapter,
  type WorkerSetup,
  type WorkerSide,
} from './adapter.js';

const SCHEMA = 'bench_graphile';
const TASK = 'bench_noop';
/** graphile-worker's default `maxPoolSize`. */
const DEFAULT_POOL_SIZE = 10;
/** The batching options of its performance page (the tuned row). */
const BATCHING = {
  localQueue: { size: 500 },
  completeJobBatchDelay: 0,
  failJobBatchDelay: 0,
} as const;

type GraphileModule = typeof GraphileWorker;

async function loadGraphile(): Promise<GraphileModule> {
  try {
    const mod = (await import('graphile-worker')) as GraphileModule & { default?: GraphileModule };
    return mod.run === undefined && mod.default !== undefined ? mod.default : mod;
  } catch (error) {
    if (isModuleNotFound(error)) throw new MissingPeerError('graphile-worker');
    throw error;
  }
}

/** The graphile-worker adapter of one row. */
export class GraphileWorkerAdapter implements SystemAdapter {
  readonly inProcessWorkers = false;
  readonly settings: Readonly<Record<string, string>>;
  private readonly tuned: boolean;
  private utils: GraphileWorker.WorkerUtils | undefined;
  private pool: pg.Pool | undefined;
  private readonly logger: GraphileWorker.Logger;

  private constructor(
    readonly system: Extract<SystemName, `graphile-worker${string}`>,
    private readonly gw: GraphileModule,
    private readonly options: AdapterOptions,
  ) {
    this.tuned = system === 'graphile-worker-batched';
    this.logger = new gw.Logger(() => (level, message) => {
      if (String(level) === 'error') process.stderr.write(`graphile-worker: ${message}\n`);
    });
    this.settings = {
      concurrency: 'C = concurrency (concurrentJobs), the row’s',
      maxPoolSize: this.tuned ? 'C + 1 (its performance page)' : `${DEFAULT_POOL_SIZE} (default)`,
      batching: this.tuned
        ? `localQueue: { size: ${BATCHING.localQueue.size} }, completeJobBatchDelay: ${BATCHING.completeJobBatchDelay}, failJobBatchDelay: ${BATCHING.failJobBatchDelay} (its performance page)`
        : 'none (defaults: no local queue, completions one by one)',
      pollInterval: 'default (2000 ms; jobs announced by LISTEN/NOTIFY)',
      preparedStatements: 'on (default)',
      enqueue:
        'workerUtils.addJob() (pool default 10); bulk: one SELECT of the documented SQL add_jobs(job_spec[])',
      history:
        'deletes succeeded jobs (no archive); permanently failed jobs stay in its jobs table',
    };
  }

  /** @throws MissingPeerError when graphile-worker is not installed. */
  static async create(
    system: Extract<SystemName, `graphile-worker${string}`>,
    options: AdapterOptions,
  ): Promise<GraphileWorkerAdapter> {
    return new GraphileWorkerAdapter(system, await loadGraphile(), options);
  }

  async reset(): Promise<void> {
    await this.close();
    this.pool = adminPool(this.options.databaseUrl);
    await dropSchema(this.pool, SCHEMA);
    this.utils = await this.gw.makeWorkerUtils({
      connectionString: this.options.databaseUrl,
      schema: SCHEMA,
      logger: this.logger,
    });
    await this.utils.migrate();
  }

  async enqueue(job: BenchJob): Promise<void> {
    await this.requireUtils().addJob(TASK, job);
  }

  async enqueueBulk(jobs: readonly BenchJob[]): Promise<void> {
    const specs = JSON.stringify(jobs.map((payload) => ({ identifier: TASK, payload })));
    await this.requireUtils().withPgClient((client) =>
      client.query(
        `SELECT count(*) FROM ${SCHEMA}.add_jobs(
           array(SELECT json_populate_recordset(null::${SCHEMA}.job_spec, $1::json)))`,
        [specs],
      ),
    );
  }

  async seedHistory(_archive: number, dead: number): Promise<string> {
    const db = this.requirePool();
    await db.query(
      `INSERT INTO ${SCHEMA}._private_tasks (identifier) VALUES ($1) ON CONFLICT DO NOTHING`,
      [TASK],
    );
    await db.query(
      `INSERT INTO ${SCHEMA}._private_jobs (task_id, payload, attempts, max_attempts, last_error,
                                            run_at, created_at, updated_at)
       SELECT (SELECT id FROM ${SCHEMA}._private_tasks WHERE identifier = $2),
              '{"i":-1,"t":0}'::json, 25, 25, 'Error: history', now() - interval '1 day',
              now() - interval '2 days', now() - interval '1 day'
       FROM generate_series(1, $1::int) AS g`,
      [dead, TASK],
    );
    await db.query(`VACUUM (ANALYZE) ${SCHEMA}._private_jobs`);
    await db.query('CHECKPOINT');
    return `archive not applicable (graphile-worker deletes succeeded jobs); ${dead.toLocaleString('en-US')} permanently failed rows (attempts = max_attempts) in ${SCHEMA}._private_jobs, where it keeps them, then VACUUM (ANALYZE) and CHECKPOINT`;
  }

  async analyze(): Promise<void> {
    await this.requirePool().query(
      `ANALYZE ${SCHEMA}._private_jobs, ${SCHEMA}._private_tasks, ${SCHEMA}._private_job_queues`,
    );
  }

  unsettled(): Promise<number> {
    return count(
      this.requirePool(),
      `SELECT count(*) FROM ${SCHEMA}._private_jobs
       WHERE attempts < max_attempts OR locked_at IS NOT NULL`,
    );
  }

  finished(): Promise<null> {
    return Promise.resolve(null);
  }

  failed(): Promise<number> {
    return count(
      this.requirePool(),
      `SELECT count(*) FROM ${SCHEMA}._private_jobs WHERE attempts > 0 AND last_error <> 'Error: history'`,
    );
  }

  async createWorker(setup: WorkerSetup): Promise<WorkerSide> {
    if (setup.maxWorkers !== undefined) throw new Error('graphile-worker has no queue cap');
    let runner: GraphileWorker.Runner | undefined;
    // The pool it would make itself (maxPoolSize), made here so it is connected before "go".
    const pgPool = new pg.Pool({
      connectionString: this.options.databaseUrl,
      max: this.tuned ? Math.max(DEFAULT_POOL_SIZE, setup.concurrency + 1) : DEFAULT_POOL_SIZE,
    });
    // Error handlers on the pool and on each client, as graphile-worker asks of a pool it is given.
    pgPool.on('error', () => undefined);
    pgPool.on('connect', (client) => client.on('error', () => undefined));
    await pgPool.query('SELECT 1');
    return {
      start: async (sink: JobSink) => {
        runner = await this.gw.run({
          pgPool,
          schema: SCHEMA,
          concurrency: setup.concurrency,
          noHandleSignals: true,
          logger: this.logger,
          crontab: '',
          ...(this.tuned ? { preset: { worker: BATCHING } } : {}),
          taskList: {
            [TASK]: (payload) => runJob(sink, payload as BenchJob, setup.jobMs),
          },
        });
      },
      stop: async () => {
        await runner?.stop();
        await pgPool.end();
      },
    };
  }

  async close(): Promise<void> {
    const utils = this.utils;
    this.utils = undefined;
    await utils?.release();
    await this.pool?.end();
    this.pool = undefined;
  }

  private requireUtils(): GraphileWorker.WorkerUtils {
    if (this.utils === undefined) throw new Error('graphile-worker: reset() first');
    return this.utils;
  }

  private requirePool(): pg.Pool {
    if (this.pool === undefined) throw new Error('graphile-worker: reset() first');
    return this.pool;
  }
}
