/**
 * The workflow graph and the awaiting gauge read through indexes on PostgreSQL: on a flow of
 * 3,061 jobs (a root, 60 children, 50 grandchildren each) among 20,000 plain jobs and 300 small
 * flows, analysed, `workflow_graph.sql` walks job_dependencies by its two indexes and looks each
 * job up by its primary key, and stops at its bound; the awaiting count of `queue_gauges.sql`
 * reads jobs_hot_awaiting_queue_idx. The walk reads no job table or job_dependencies in full, nor
 * does the resolver's lock of a settled job's dependents or of given jobs (`workflow_lock.sql`):
 * an edge's id in another collation than the hot row's made every resolver call read
 * job_dependencies whole (schema 27).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { QUERIES } from '../../src/storage/sql/generated.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { nodesOf, type PlanNode } from '../helpers/plans.js';
import { withSchema } from '../../src/storage/sql/schema.js';

const pgUp = await postgresAvailable();

/** Tables no plan may read sequentially. */
const TABLES = new Set(['jobs_hot', 'jobs_archive', 'jobs_dlq', 'job_dependencies']);

describe.skipIf(!pgUp)('workflow statements on PostgreSQL (plans)', () => {
  const schema = uniqueSchema('wfplan');
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  let leaf = '';
  /** A job of the big flow with 50 dependents. */
  let middle = '';

  beforeAll(async () => {
    const job = defineJob({ type: 'plan.v1', queue: 'plan', handle: () => undefined });
    const chokaq = new ChokaQ({
      storage: postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger }),
      jobs: [job],
      worker: false,
      logger: silentLogger,
    });
    try {
      for (let i = 0; i < 20; i++) {
        await chokaq.enqueueMany(
          job,
          Array.from({ length: 1000 }, (_, n) => ({ payload: { n } })),
        );
      }
      for (let f = 0; f < 300; f++) {
        await chokaq.enqueueWorkflow((workflow) => {
          const a = workflow.add(job, {});
          const b = workflow.add(job, {});
          workflow.add(job, {}, { dependsOn: [a, b] });
        });
      }
      await chokaq.enqueueWorkflow((workflow) => {
        const root = workflow.add(job, {});
        for (let m = 0; m < 60; m++) {
          const child = workflow.add(job, {}, { dependsOn: [root] });
          middle = child;
          for (let l = 0; l < 50; l++) leaf = workflow.add(job, {}, { dependsOn: [child] });
        }
      });
    } finally {
      await chokaq.stop();
    }
    await client.connect();
    await client.query(`ANALYZE "${schema}".job_dependencies, "${schema}".jobs_hot`);
  }, 180_000);

  afterAll(async () => {
    await client.end();
    await dropSchema(schema);
  });

  /** The plan of a statement run with `params`, analysed. */
  async function plan(name: keyof typeof QUERIES, params: unknown[]): Promise<PlanNode[]> {
    const text = withSchema(QUERIES[name], schema);
    const { rows } = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${text}`,
      params,
    );
    return nodesOf(rows[0]!['QUERY PLAN'][0]!.Plan);
  }

  const seqScans = (nodes: PlanNode[]) =>
    nodes.filter((n) => n['Node Type'] === 'Seq Scan' && TABLES.has(n['Relation Name'] ?? ''));

  it('walks a flow by the indexes of job_dependencies and stops at its bound', async () => {
    const nodes = await plan('workflow_graph', [leaf, 1001]);
    expect(seqScans(nodes)).toEqual([]);
    const indexes = new Set(nodes.map((n) => n['Index Name']).filter(Boolean));
    for (const index of [
      'job_dependencies_pkey',
      'job_dependencies_depends_on_idx',
      'jobs_hot_pkey',
    ]) {
      expect(indexes).toContain(index);
    }
    const walk = nodes.find((n) => n['Node Type'] === 'Recursive Union');
    expect(walk?.['Actual Rows']).toBe(1001);
  });

  it.each([
    ['the dependents of a settled job', () => [null, [middle], null, 100]],
    ['given jobs', () => [[leaf], null, null, 100]],
  ])('locks %s through the edge indexes', async (_, params) => {
    const nodes = await plan('workflow_lock', params());
    // (The archive is empty here: reading it whole is the planner's right choice.)
    expect(seqScans(nodes).filter((n) => n['Relation Name'] !== 'jobs_archive')).toEqual([]);
    expect(nodes.map((n) => n['Index Name'])).toEqual(
      expect.arrayContaining(['job_dependencies_pkey']),
    );
  });

  it('counts awaiting jobs on their own index', async () => {
    const nodes = await plan('queue_gauges', [null]);
    // (Here most hot rows are pending: reading them in full is the planner's right choice.)
    expect(seqScans(nodes).filter((n) => n.Filter?.includes('status = 4'))).toEqual([]);
    expect(nodes.map((n) => n['Index Name'])).toContain('jobs_hot_awaiting_queue_idx');
  });
});
