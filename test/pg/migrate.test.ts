import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ChokaQError } from '../../src/errors.js';
import { migrate, postgres } from '../../src/storage/postgres/index.js';
import { MIGRATIONS } from '../../src/storage/sql/generated.js';
import { silentLogger } from '../../src/observability/logging/logger.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { FakeClock } from '../../src/util/clock.js';
import { withSchema } from '../../src/storage/sql/schema.js';

const available = await postgresAvailable();
const created: string[] = [];

function schemaForTest(): string {
  const schema = uniqueSchema('mig');
  created.push(schema);
  return schema;
}

async function sql<R>(text: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as R[];
  } finally {
    await client.end();
  }
}

async function ledger(schema: string): Promise<number[]> {
  const rows = await sql<{ version: number }>(
    `select version from "${schema}".schema_migrations order by version`,
  );
  return rows.map((row) => row.version);
}

async function schemaExists(schema: string): Promise<boolean> {
  const rows = await sql<{ n: string }>(
    'select count(*) as n from pg_namespace where nspname = $1',
    [schema],
  );
  return rows[0]?.n === '1';
}

const allVersions = MIGRATIONS.map((m) => m.version);

describe.skipIf(!available)('postgres migrations', () => {
  afterAll(async () => {
    for (const schema of created) await dropSchema(schema);
  });

  it('migrates a fresh schema and records every version', async () => {
    const schema = schemaForTest();
    const applied = await migrate({ connectionString: TEST_DATABASE_URL, schema });
    expect(applied.map((m) => m.version)).toEqual(allVersions);
    expect(await ledger(schema)).toEqual(allVersions);
    const queues = await sql<{ name: string }>(`select name from "${schema}".queues`);
    expect(queues.map((q) => q.name)).toEqual(['default']);
    // Running again applies nothing.
    expect(await migrate({ connectionString: TEST_DATABASE_URL, schema })).toEqual([]);
  });

  it('lets four processes migrate one new schema at once, each version applied once', async () => {
    const schema = schemaForTest();
    const runs = await Promise.all(
      Array.from({ length: 4 }, () => migrate({ connectionString: TEST_DATABASE_URL, schema })),
    );
    const appliedVersions = runs.flatMap((run) => run.map((m) => m.version)).sort((a, b) => a - b);
    expect(appliedVersions).toEqual(allVersions);
    expect(await ledger(schema)).toEqual(allVersions);
  });

  it('opens stores concurrently on one new schema', async () => {
    const schema = schemaForTest();
    const stores = Array.from({ length: 4 }, () =>
      postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger, poolSize: 2 }),
    );
    try {
      await Promise.all(stores.map((store) => store.open()));
      expect(await ledger(schema)).toEqual(allVersions);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  it('dry run returns the SQL that would run and applies nothing', async () => {
    const schema = schemaForTest();
    const planned = await migrate({ connectionString: TEST_DATABASE_URL, schema, dryRun: true });
    expect(planned.map((m) => m.version)).toEqual(allVersions);
    expect(planned[0]?.sql).toContain(`CREATE TABLE IF NOT EXISTS "${schema}".jobs_hot`);
    expect(planned[0]?.sql).not.toContain(':SCHEMA');
    expect(await schemaExists(schema)).toBe(false);

    await migrate({ connectionString: TEST_DATABASE_URL, schema });
    expect(await migrate({ connectionString: TEST_DATABASE_URL, schema, dryRun: true })).toEqual(
      [],
    );
  });

  it('rejects an invalid schema name with CHOKAQ_INVALID_CONFIG', async () => {
    const invalid = 'a;drop';
    await expect(
      migrate({ connectionString: TEST_DATABASE_URL, schema: invalid }),
    ).rejects.toMatchObject({ code: 'CHOKAQ_INVALID_CONFIG' });
    expect(() => postgres({ connectionString: TEST_DATABASE_URL, schema: invalid })).toThrow(
      ChokaQError,
    );
    for (const name of ['Upper', '1abc', '', 'a'.repeat(64), 'x"y']) {
      expect(() => postgres({ connectionString: TEST_DATABASE_URL, schema: name })).toThrow(
        expect.objectContaining({ code: 'CHOKAQ_INVALID_CONFIG' }) as Error,
      );
    }
  });

  it('upgrades a schema with keyed jobs in flight to the keyed claim order (version 18)', async () => {
    const schema = schemaForTest();
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA "${schema}"`);
      for (const migration of MIGRATIONS.filter((m) => m.version < 18)) {
        await client.query(withSchema(migration.sql, schema));
        await client.query(
          `INSERT INTO "${schema}".schema_migrations (version, name) VALUES ($1, $2)`,
          [migration.version, migration.name],
        );
      }
      await client.query(`INSERT INTO "${schema}".queues (name) VALUES ('up')`);
      // Key a: one job running (its limit of 1 reached) and one waiting; key b: one waiting.
      await client.query(
        `INSERT INTO "${schema}".jobs_hot (id, queue, type, payload, status, run_at,
                                           concurrency_key, concurrency_limit)
         VALUES ('a-1', 'up', 't', '{}', 2, now(), 'a', 1), ('a-2', 'up', 't', '{}', 0, now(), 'a', 1),
                ('b-1', 'up', 't', '{}', 0, now(), 'b', 1)`,
      );
    } finally {
      await client.end();
    }
    const store = postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger });
    await store.open();
    try {
      expect(await ledger(schema)).toEqual(allVersions);
      const claimed = await store.jobs.claim({ workerId: 'w', limit: 5, queues: ['up'] });
      expect(claimed.map((job) => job.id)).toEqual(['b-1']);
    } finally {
      await store.close();
    }
  });
  it('upgrades an audit trail to the recorded order (version 19), keeping the old order of its entries', async () => {
    const schema = schemaForTest();
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA "${schema}"`);
      for (const migration of MIGRATIONS.filter((m) => m.version < 19)) {
        await client.query(withSchema(migration.sql, schema));
        await client.query(
          `INSERT INTO "${schema}".schema_migrations (version, name) VALUES ($1, $2)`,
          [migration.version, migration.name],
        );
      }
      // Two entries of before version 19: the older one first by time.
      await client.query(
        `INSERT INTO "${schema}".operator_actions (id, at, actor, action, target, outcome)
         VALUES ('b-old', now() - interval '1 hour', 'a', 'purge', '{}', '{}'),
                ('a-new', now(), 'a', 'cancel', '{}', '{}')`,
      );
    } finally {
      await client.end();
    }
    const store = postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger });
    await store.open();
    try {
      expect(await ledger(schema)).toEqual(allVersions);
      // A new entry with an id that sorts first still lists as the newest.
      await store.bulk.recordAction({
        id: '0-newest',
        actor: 'a',
        action: 'pause',
        reason: null,
        target: {},
        outcome: {},
      });
      expect((await store.bulk.listActions(10)).map((e) => e.id)).toEqual([
        '0-newest',
        'a-new',
        'b-old',
      ]);
    } finally {
      await store.close();
    }
  });
  it('upgrades waiting jobs due later to scheduled (version 21), and the promoter brings them back', async () => {
    const schema = schemaForTest();
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      await client.query(`CREATE SCHEMA "${schema}"`);
      for (const migration of MIGRATIONS.filter((m) => m.version < 21)) {
        await client.query(withSchema(migration.sql, schema));
        await client.query(
          `INSERT INTO "${schema}".schema_migrations (version, name) VALUES ($1, $2)`,
          [migration.version, migration.name],
        );
      }
      await client.query(`INSERT INTO "${schema}".queues (name) VALUES ('up')`);
      // Before version 21 a job due later was pending with a later run_at.
      await client.query(
        `INSERT INTO "${schema}".jobs_hot (id, queue, type, payload, status, run_at)
         VALUES ('due', 'up', 't', '{}', 0, now() - interval '1 s'),
                ('soon', 'up', 't', '{}', 0, now() + interval '300 ms'),
                ('later', 'up', 't', '{}', 0, now() + interval '1 day')`,
      );
    } finally {
      await client.end();
    }
    // The store's clock starts after the inserts and moves past the soon job's due time below.
    const clock = new FakeClock(Date.now());
    const store = postgres({
      connectionString: TEST_DATABASE_URL,
      schema,
      logger: silentLogger,
      clock,
    });
    await store.open();
    try {
      expect(await ledger(schema)).toEqual(allVersions);
      const states = async () =>
        Object.fromEntries(
          (await store.operator.listHot({ queue: 'up', limit: 10 })).map((job) => [
            job.id,
            job.state,
          ]),
        );
      expect(await states()).toEqual({ due: 'pending', soon: 'scheduled', later: 'scheduled' });
      expect(
        (await store.jobs.claim({ workerId: 'w', limit: 5, queues: ['up'] })).map((j) => j.id),
      ).toEqual(['due']);
      clock.advance(1000);
      expect((await store.jobs.promote(10)).promoted).toEqual([{ queue: 'up', count: 1 }]);
      expect(await states()).toMatchObject({ soon: 'pending', later: 'scheduled' });
    } finally {
      await store.close();
    }
  });
});
