/**
 * graphile-worker under test (loaded with `import()`, so the bench runs without it).
 * 0.16.6 is the newest release that runs on Node 20; the `localQueue` and completion-batching
 * options of its performance page (`localQueue: { size: 500 }`, `completeJobBatchDelay: 0`,
 * `failJobBatchDelay: 0`) arrived in 0.17, which needs Node 22. The settings used are the rest of
 * that page: `concurrentJobs` with `maxPoolSize` = concurrency + 1, prepared statements on.
 */
import type * as GraphileWorker from 'graphile-worker';
import pg from 'pg';
import { adminPool, count, dropSchema } from '../db.js';
import type { BenchJob, JobSink } from '../types.js';
import {
  isModuleNotFound,
  MissingPeerError,
  type AdapterOptions,
  type SystemAdapter,
  type WorkerSide,
} from './adapter.js';

const SCHEMA = 'bench_graphile';
const TASK = 'bench_noop';

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

/** The graphile-worker adapter. */
export class GraphileWorkerAdapter implements SystemAdapter {
  readonly system = 'graphile-worker' as const;
  readonly inProcessWorkers = false;
  readonly settings: Readonly<Record<string, string>>;
  private utils: GraphileWorker.WorkerUtils | undefined;
  private pool: pg.Pool | undefined;
  private readonly logger: GraphileWorker.Logger;

  private constructor(
    private readonly gw: GraphileModule,
    private readonly options: AdapterOptions,
  ) {
    this.logger = new gw.Logger(() => (level, message) => {
      if (String(level) === 'error') process.stderr.write(`graphile-worker: ${message}\n`);
    });
    this.settings = {
      concurrentJobs: String(options.concurrency),
      maxPoolSize: String(options.concurrency + 1),
      pollInterval: 'default (2000 ms; jobs announced by LISTEN/NOTIFY)',
      preparedStatements: 'on (default)',
      'localQueue / completeJobBatchDelay / failJobBatchDelay':
        'not available in 0.16.6 (added in 0.17, which needs Node 22)',
      enqueue:
        'workerUtils.addJob() (pool default 10); bulk: one SELECT of the documented SQL add_jobs(job_spec[])',
      history:
        'deletes succeeded jobs (no archive); permanently failed jobs stay in its jobs table',
    };
  }

  /** @throws MissingPeerError when graphile-worker is not installed. */
  static async create(options: AdapterOptions): Promise<GraphileWorkerAdapter> {
    return new GraphileWorkerAdapter(await loadGraphile(), options);
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

  async createWorker(): Promise<WorkerSide> {
    let runner: GraphileWorker.Runner | undefined;
    // The pool (maxPoolSize = concurrency + 1, as its performance page) is connected before "go".
    const pgPool = new pg.Pool({
      connectionString: this.options.databaseUrl,
      max: this.options.concurrency + 1,
    });
    pgPool.on('error', () => undefined);
    await pgPool.query('SELECT 1');
    return {
      start: async (sink: JobSink) => {
        runner = await this.gw.run({
          pgPool,
          schema: SCHEMA,
          concurrency: this.options.concurrency,
          noHandleSignals: true,
          logger: this.logger,
          crontab: '',
          taskList: {
            [TASK]: (payload) => {
              sink(payload as BenchJob);
            },
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
