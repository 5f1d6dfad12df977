/**
 * Bad input ends in a clear error or in the dead-letter queue, never in a lost job: enqueue-time
 * checks reject before anything is written (whole batches included), and rows that only turn out
 * bad when a worker runs them (unknown type, malformed JSON, schema-invalid payload, a handler
 * throwing a non-Error) are claimed and moved to the DLQ with a reason.
 *
 * Runs on PostgreSQL (rows planted with plain SQL) and on the memory store (rows planted through
 * the store, below the ChokaQ checks).
 */
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ChokaQ,
  ChokaQError,
  defineJob,
  memory,
  silentLogger,
  type ErrorCode,
} from '../../src/index.js';
import type { Store } from '../../src/storage/store.js';
import type { AnyJobDefinition } from '../../src/job/registry.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { waitForJob } from '../../src/testing/index.js';

const pgUp = await postgresAvailable();

/** A row planted below ChokaQ's enqueue checks. */
interface RawRow {
  id: string;
  queue: string;
  type: string;
  payload: string;
}

/** One provider's store for one test, plus raw access to it. */
interface Harness {
  storage: Store;
  /** Opens the store (creating the schema) and writes `row` as a pending job, unchecked. */
  insertRaw(row: RawRow): Promise<void>;
  /** Hot rows in the whole store, counted without going through ChokaQ. */
  hotCount(): Promise<number>;
  cleanup(): Promise<void>;
}

interface Provider {
  name: string;
  available: boolean;
  make(): Harness;
}

const providers: Provider[] = [
  {
    name: 'memory',
    available: true,
    make() {
      const storage = memory();
      return {
        storage,
        async insertRaw(row) {
          await storage.open();
          await storage.jobs.enqueue([
            { ...row, priority: 10, delayMs: 0, idempotencyKey: null, tags: null, createdBy: null },
          ]);
        },
        async hotCount() {
          await storage.open();
          return (await storage.operator.listHot({ limit: 100_000 })).length;
        },
        cleanup: () => storage.close(),
      };
    },
  },
  {
    name: 'postgres',
    available: pgUp,
    make() {
      const schema = uniqueSchema('bad');
      const storage = postgres({
        connectionString: TEST_DATABASE_URL,
        schema,
        logger: silentLogger,
      });
      let client: pg.Client | undefined;
      const sql = async (text: string, values: unknown[] = []): Promise<pg.QueryResult> => {
        await storage.open(); // creates and migrates the schema
        if (!client) {
          client = new pg.Client({ connectionString: TEST_DATABASE_URL });
          await client.connect();
        }
        return client.query(text, values);
      };
      return {
        storage,
        async insertRaw(row) {
          // The queue must be known (`queues` row) to be claimed; 'default' is created by the migration.
          await sql(
            `insert into "${schema}".queues (name) values ($1) on conflict (name) do nothing`,
            [row.queue],
          );
          await sql(
            `insert into "${schema}".jobs_hot
               (id, queue, type, payload, priority, status, attempts, run_at, created_at, updated_at)
             values ($1, $2, $3, $4, 10, 0, 0, now(), now(), now())`,
            [row.id, row.queue, row.type, row.payload],
          );
        },
        async hotCount() {
          const result = await sql(`select count(*)::int as n from "${schema}".jobs_hot`);
          return (result.rows[0] as { n: number }).n;
        },
        async cleanup() {
          await client?.end().catch(() => undefined);
          try {
            await storage.close();
          } finally {
            await dropSchema(schema);
          }
        },
      };
    },
  },
];

/** The code of the ChokaQError `promise` rejects with; fails the test on anything else. */
async function codeOf(promise: Promise<unknown>): Promise<ErrorCode | 'resolved'> {
  try {
    await promise;
    return 'resolved';
  } catch (error) {
    expect(error).toBeInstanceOf(ChokaQError);
    return (error as ChokaQError).code;
  }
}

for (const provider of providers) {
  describe.skipIf(!provider.available)(`bad input on ${provider.name}`, () => {
    let harness: Harness;
    const engines: ChokaQ[] = [];

    const email = defineJob<{ to: string }>({
      type: 'bad.email.v1',
      queue: 'mail',
      handle: () => undefined,
    });

    /** An enqueue-only engine on this test's store. */
    function producer(
      options: { maxPayloadBytes?: number; jobs?: AnyJobDefinition[] } = {},
    ): ChokaQ {
      const chokaq = new ChokaQ({
        storage: harness.storage,
        jobs: options.jobs ?? [email],
        worker: false,
        logger: silentLogger,
        ...(options.maxPayloadBytes === undefined
          ? {}
          : { maxPayloadBytes: options.maxPayloadBytes }),
      });
      engines.push(chokaq);
      return chokaq;
    }

    /** A started worker engine on this test's store. */
    async function worker(jobs: AnyJobDefinition[]): Promise<ChokaQ> {
      const chokaq = new ChokaQ({
        storage: harness.storage,
        jobs,
        pollInterval: 25,
        shutdownGracePeriod: '5s',
        logger: silentLogger,
      });
      engines.push(chokaq);
      await chokaq.start();
      return chokaq;
    }

    /** Nothing reached the store: no hot row, nothing archived or dead, no stray queue. */
    async function expectNothingWritten(chokaq: ChokaQ, knownQueues: string[] = []): Promise<void> {
      expect(await harness.hotCount()).toBe(0);
      expect(await chokaq.listJobs({ limit: 1000 })).toEqual([]);
      const stats = await chokaq.queues.stats();
      for (const s of stats) {
        expect([s.queue, s.pending + s.fetched + s.processing + s.archived + s.dead]).toEqual([
          s.queue,
          0,
        ]);
      }
      const allowed = new Set(['default', ...knownQueues]);
      expect(stats.map((s) => s.queue).filter((q) => !allowed.has(q))).toEqual([]);
    }

    beforeEach(() => {
      harness = provider.make();
    });

    afterEach(async () => {
      const running = engines.splice(0);
      for (const chokaq of running) await chokaq.stop().catch(() => undefined);
      await harness.cleanup();
    });

    it('rejects an oversized payload with CHOKAQ_PAYLOAD_TOO_LARGE and writes nothing', async () => {
      const chokaq = producer();
      expect(await codeOf(chokaq.enqueue(email, { to: 'x'.repeat(1_000_001) }))).toBe(
        'CHOKAQ_PAYLOAD_TOO_LARGE',
      );
      // The limit counts UTF-8 bytes, not characters: 40 × 'é' is 80 bytes.
      const small = producer({ maxPayloadBytes: 64 });
      expect(await codeOf(small.enqueue(email, { to: 'é'.repeat(40) }))).toBe(
        'CHOKAQ_PAYLOAD_TOO_LARGE',
      );
      await expectNothingWritten(chokaq);
      // Just under the limit is accepted.
      await small.enqueue(email, { to: 'é'.repeat(20) });
      expect(await harness.hotCount()).toBe(1);
    });

    it('rejects invalid queue names with CHOKAQ_INVALID_QUEUE and writes nothing', async () => {
      const chokaq = producer();
      const names = ['', 'a b', 'x;drop table', 'q'.repeat(256), 'tab\tname', 'ünï'];
      for (const queue of names) {
        expect([queue, await codeOf(chokaq.enqueue(email, { to: 'a@b.c' }, { queue }))]).toEqual([
          queue,
          'CHOKAQ_INVALID_QUEUE',
        ]);
        expect([
          queue,
          await codeOf(chokaq.enqueueMany(email, [{ payload: { to: 'a@b.c' }, queue }])),
        ]).toEqual([queue, 'CHOKAQ_INVALID_QUEUE']);
        expect([queue, await codeOf(chokaq.queues.pause(queue))]).toEqual([
          queue,
          'CHOKAQ_INVALID_QUEUE',
        ]);
      }
      expect(() =>
        defineJob({ type: 'bad.queue.v1', queue: 'x;drop table', handle: () => undefined }),
      ).toThrow(expect.objectContaining({ code: 'CHOKAQ_INVALID_QUEUE' }));
      await expectNothingWritten(chokaq);
      // The longest valid name works.
      await chokaq.enqueue(email, { to: 'a@b.c' }, { queue: 'q'.repeat(255) });
      expect(await harness.hotCount()).toBe(1);
    });

    it('writes none of a batch when one item is invalid', async () => {
      const chokaq = producer({ maxPayloadBytes: 1000 });
      const batch = (bad: Partial<{ queue: string; payload: { to: string } }>) =>
        Array.from({ length: 100 }, (_, i) =>
          i === 57 ? { payload: { to: 'bad@x.y' }, ...bad } : { payload: { to: `u${i}@x.y` } },
        );
      expect(await codeOf(chokaq.enqueueMany(email, batch({ queue: 'a b' })))).toBe(
        'CHOKAQ_INVALID_QUEUE',
      );
      expect(
        await codeOf(chokaq.enqueueMany(email, batch({ payload: { to: 'x'.repeat(2000) } }))),
      ).toBe('CHOKAQ_PAYLOAD_TOO_LARGE');
      expect(
        await codeOf(
          chokaq.enqueueMany(
            email,
            Array.from({ length: 10 }, (_, i) => ({
              payload: { to: `u${i}@x.y` },
              ...(i === 9 ? { priority: 1.5 } : {}),
            })),
          ),
        ),
      ).toBe('CHOKAQ_INVALID_PRIORITY');
      await expectNothingWritten(chokaq);

      // An item the store itself refuses (an id already active) also rolls back the whole batch.
      await chokaq.enqueue(email, { to: 'first@x.y' }, { id: 'taken-1' });
      const withTakenId = Array.from({ length: 50 }, (_, i) => ({
        payload: { to: `u${i}@x.y` },
        ...(i === 49 ? { id: 'taken-1' } : {}),
      }));
      expect(await codeOf(chokaq.enqueueMany(email, withTakenId))).toBe('CHOKAQ_DUPLICATE_JOB_ID');
      expect(await harness.hotCount()).toBe(1);
      const [only] = await chokaq.listJobs();
      expect(only?.id).toBe('taken-1');
      expect(only?.payload).toBe('{"to":"first@x.y"}');
    });

    it('rejects a payload that fails the job schema with CHOKAQ_PAYLOAD_INVALID', async () => {
      const signup = defineJob({
        type: 'bad.signup.v1',
        queue: 'mail',
        payload: z.object({ to: z.string().min(3), count: z.number().int() }),
        handle: () => undefined,
      });
      const chokaq = producer({ jobs: [signup] });
      const error = await chokaq.enqueue(signup, { to: 'ok@x.y', count: 1.5 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ChokaQError);
      expect((error as ChokaQError).code).toBe('CHOKAQ_PAYLOAD_INVALID');
      expect((error as ChokaQError).message).toContain('count');
      expect(
        await codeOf(
          chokaq.enqueue(signup, { to: 42, count: 1 } as unknown as { to: string; count: number }),
        ),
      ).toBe('CHOKAQ_PAYLOAD_INVALID');
      // By type key the schema applies too.
      expect(await codeOf(chokaq.enqueue('bad.signup.v1', { to: 'x' }))).toBe(
        'CHOKAQ_PAYLOAD_INVALID',
      );
      // Not serializable at all.
      expect(
        await codeOf(chokaq.enqueue(email, { to: 'a', big: 1n } as unknown as { to: string })),
      ).toBe('CHOKAQ_PAYLOAD_INVALID');
      await expectNothingWritten(chokaq);
    });

    it('rejects an unknown type key without a pipe handler with CHOKAQ_UNKNOWN_JOB_TYPE', async () => {
      const chokaq = producer();
      expect(await codeOf(chokaq.enqueue('nobody.handles.v1', { any: 1 }))).toBe(
        'CHOKAQ_UNKNOWN_JOB_TYPE',
      );
      expect(
        await codeOf(chokaq.enqueueMany('nobody.handles.v1', [{ payload: 1 }, { payload: 2 }])),
      ).toBe('CHOKAQ_UNKNOWN_JOB_TYPE');
      expect(await codeOf(chokaq.enqueue('   ', {}))).toBe('CHOKAQ_INVALID_JOB_TYPE');
      await expectNothingWritten(chokaq);
    });

    it('leaves a planted row of an unknown type pending for a worker that can run it', async () => {
      await harness.insertRaw({
        id: 'ghost-1',
        queue: 'default',
        type: 'ghost.type.v1',
        payload: '{"a":1}',
      });
      let ran = 0;
      const other = defineJob({ type: 'bad.other.v1', queue: 'default', handle: () => void ran++ });
      const chokaq = await worker([other]);
      // The ghost row comes first in claim order; the worker claims past it and runs its own job.
      const { id } = await chokaq.enqueue(other, {});
      await waitForJob(chokaq, id, 'succeeded');
      expect(ran).toBe(1);
      expect(await chokaq.getJob('ghost-1')).toMatchObject({
        where: 'hot',
        job: { state: 'pending', attempts: 0, workerId: null },
      });
      // A worker that can run every type (pipe mode) takes it.
      const piped: string[] = [];
      const pipeWorker = new ChokaQ({
        storage: harness.storage,
        pipe: (type, payload) => void piped.push(`${type} ${payload}`),
        pollInterval: 25,
        logger: silentLogger,
      });
      engines.push(pipeWorker);
      await pipeWorker.start();
      await waitForJob(chokaq, 'ghost-1', 'succeeded');
      expect(piped).toEqual(['ghost.type.v1 {"a":1}']);
    });

    it('moves a planted row with malformed JSON to the DLQ as Fatal without running it', async () => {
      let ran = 0;
      const job = defineJob<{ to: string }>({
        type: 'bad.json.v1',
        queue: 'default',
        handle: () => void ran++,
      });
      await harness.insertRaw({ id: 'oops-1', queue: 'default', type: job.type, payload: '{oops' });
      const chokaq = await worker([job]);
      const dead = await waitForJob(chokaq, 'oops-1', 'dead');
      expect(dead.reason).toBe('Fatal');
      expect(dead.attempts).toBe(1);
      expect(dead.payload).toBe('{oops'); // kept byte for byte for the operator
      expect(dead.errorDetails).toContain('SyntaxError');
      expect(ran).toBe(0);
      expect(await harness.hotCount()).toBe(0);
    });

    it('moves a planted row that fails the job schema to the DLQ as Fatal without running it', async () => {
      let ran = 0;
      const job = defineJob({
        type: 'bad.schema.v1',
        queue: 'default',
        payload: z.object({ to: z.string() }),
        handle: () => void ran++,
      });
      await harness.insertRaw({
        id: 'schema-1',
        queue: 'default',
        type: job.type,
        payload: '{"to":7}',
      });
      const chokaq = await worker([job]);
      const dead = await waitForJob(chokaq, 'schema-1', 'dead');
      expect(dead.reason).toBe('Fatal');
      expect(dead.attempts).toBe(1);
      expect(dead.errorDetails).toContain("payload of 'bad.schema.v1' is invalid");
      expect(ran).toBe(0);
    });

    it('retries a handler that throws a string, then dead-letters it as Transient', async () => {
      const attempts: number[] = [];
      const job = defineJob<{ n: number }>({
        type: 'bad.throws-string.v1',
        queue: 'default',
        retry: { maxAttempts: 3, baseDelay: 10, multiplier: 1, maxDelay: 20, jitter: 0 },
        handle: (_payload, ctx) => {
          attempts.push(ctx.attempt);
          // eslint-disable-next-line @typescript-eslint/only-throw-error -- the point of the test
          throw 'plain string failure #42';
        },
      });
      const chokaq = await worker([job]);
      const { id } = await chokaq.enqueue(job, { n: 1 });
      const dead = await waitForJob(chokaq, id, 'dead');
      expect(dead.reason).toBe('Transient');
      expect(dead.attempts).toBe(3);
      expect(dead.errorDetails).toContain('plain string failure #42');
      expect(attempts).toEqual([1, 2, 3]);
      expect(await harness.hotCount()).toBe(0);
      const stats = (await chokaq.queues.stats()).find((s) => s.queue === 'default');
      expect(stats).toMatchObject({ dead: 1, failedTotal: 1, retriedTotal: 2, succeededTotal: 0 });
    });
  });
}
