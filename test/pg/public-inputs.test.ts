/**
 * Every public input is checked before anything happens: a bad option or argument gets a
 * `ChokaQError` with a stable code, the field's path in `error.field`, a message naming the field
 * and the value with its type — and nothing is written. Runs on the memory store and on
 * PostgreSQL (nothing may reach it unchecked).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChokaQ,
  defineJob,
  memory,
  silentLogger,
  type ChokaQOptions,
  type ErrorCode,
} from '../../src/index.js';
import { z } from 'zod';
import { postgres } from '../../src/storage/postgres/index.js';
import type { Store } from '../../src/storage/store.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { failure } from '../helpers/failure.js';

const pgUp = await postgresAvailable();

const mail = defineJob({
  type: 'inputs.mail.v1',
  payload: z.object({ to: z.string() }),
  handle: () => undefined,
});

/** Bad `new ChokaQ` options: [label, options, code, field, text in the message]. */
const BAD_OPTIONS: [
  string,
  Partial<ChokaQOptions> & Record<string, unknown>,
  ErrorCode,
  string,
  string,
][] = [
  [
    'concurrency 1e9',
    { concurrency: 1e9 },
    'CHOKAQ_INVALID_CONFIG',
    'concurrency',
    '1000000000 (number)',
  ],
  [
    'a typo',
    { concurency: 5 },
    'CHOKAQ_UNKNOWN_OPTION',
    'options.concurency',
    'did you mean concurrency',
  ],
  ['timeout 30d', { timeout: '30d' }, 'CHOKAQ_INVALID_DURATION', 'timeout', '"30d" (string)'],
  [
    'grace 30d',
    { shutdownGracePeriod: '30d' },
    'CHOKAQ_INVALID_DURATION',
    'shutdownGracePeriod',
    '24.8 days',
  ],
  [
    'abort grace 30d',
    { abortGracePeriod: '30d' },
    'CHOKAQ_INVALID_DURATION',
    'abortGracePeriod',
    '"30d"',
  ],
  [
    'a negative poll',
    { pollInterval: -5 },
    'CHOKAQ_INVALID_DURATION',
    'pollInterval',
    '-5 (number)',
  ],
  ['prefetch 1.5', { prefetch: 1.5 }, 'CHOKAQ_INVALID_CONFIG', 'prefetch', '1.5 (number)'],
  [
    'worker "yes"',
    { worker: 'yes' as unknown as boolean },
    'CHOKAQ_INVALID_CONFIG',
    'worker',
    '"yes" (string)',
  ],
  [
    'a queue typo',
    { queues: { q: { maxWorker: 3 } as never } },
    'CHOKAQ_UNKNOWN_OPTION',
    'queues.q.maxWorker',
    'maxWorkers',
  ],
  [
    'a bad queue name',
    { queues: { 'a b': {} } },
    'CHOKAQ_INVALID_QUEUE',
    'queues.a b (queue name)',
    '"a b"',
  ],
  [
    'maxWorkers 0',
    { queues: { q: { maxWorkers: 0 } } },
    'CHOKAQ_INVALID_CONFIG',
    'queues.q.maxWorkers',
    '0 (number)',
  ],
  [
    'a zombie timeout below the heartbeat',
    { zombieTimeout: '5s' },
    'CHOKAQ_INVALID_CONFIG',
    'zombieTimeout',
    'heartbeatInterval',
  ],
  [
    'a retry typo',
    { retry: { maxAttempt: 3 } as never },
    'CHOKAQ_UNKNOWN_OPTION',
    'retry.maxAttempt',
    'maxAttempts',
  ],
  [
    'a circuit typo',
    { circuitBreaker: { failureTreshold: 3 } as never },
    'CHOKAQ_UNKNOWN_OPTION',
    'circuitBreaker.failureTreshold',
    'failureThreshold',
  ],
  [
    'a job that is no definition',
    { jobs: [{ type: 'x' }] as never },
    'CHOKAQ_INVALID_CONFIG',
    'jobs[0]',
    'defineJob',
  ],
  [
    'workerId too long',
    { workerId: 'w'.repeat(101) },
    'CHOKAQ_INVALID_CONFIG',
    'workerId',
    '100 characters',
  ],
  [
    'a clock without timers',
    { clock: { now: () => 0 } as never },
    'CHOKAQ_INVALID_CONFIG',
    'clock',
    'schedule',
  ],
  [
    'telemetry.metrics not a boolean',
    { telemetry: { metrics: 'yes' as never } },
    'CHOKAQ_INVALID_CONFIG',
    'telemetry.metrics',
    '"yes" (string)',
  ],
  [
    'an unknown telemetry option',
    { telemetry: { meters: {} } as never },
    'CHOKAQ_UNKNOWN_OPTION',
    'telemetry.meters',
    'meterProvider',
  ],
  [
    'a meterProvider without getMeter',
    { telemetry: { meterProvider: {} as never } },
    'CHOKAQ_INVALID_CONFIG',
    'telemetry.meterProvider',
    'getMeter',
  ],
  [
    'health.lagUnhealthy below lagDegraded',
    { health: { lagDegraded: '10m', lagUnhealthy: '1m' } },
    'CHOKAQ_INVALID_CONFIG',
    'health.lagUnhealthy',
    'at least health.lagDegraded',
  ],
  [
    'a queue lag threshold that is no duration',
    { queues: { emails: { lagDegraded: 'soon' as never } } },
    'CHOKAQ_INVALID_DURATION',
    'queues.emails.lagDegraded',
    '"soon" (string)',
  ],
  [
    'an unknown health option',
    { health: { dbTimout: '1s' } as never },
    'CHOKAQ_UNKNOWN_OPTION',
    'health.dbTimout',
    'dbTimeout',
  ],
  [
    'health.stallTimeout of 0',
    { health: { stallTimeout: 0 } },
    'CHOKAQ_INVALID_DURATION',
    'health.stallTimeout',
    '0 (number)',
  ],
  [
    'a retention age under a second',
    { retention: { archive: '500ms' } },
    'CHOKAQ_INVALID_DURATION',
    'retention.archive',
    '"500ms" (string)',
  ],
  [
    'a retention batch size of 0',
    { retention: { batchSize: 0 } },
    'CHOKAQ_INVALID_CONFIG',
    'retention.batchSize',
    '0 (number)',
  ],
  [
    'an unknown retention table',
    { retention: { jobs: '1d' } as never },
    'CHOKAQ_UNKNOWN_OPTION',
    'retention.jobs',
    'archive',
  ],
  [
    "a queue's unknown retention key",
    { queues: { emails: { retention: { audit: '1d' } as never } } },
    'CHOKAQ_UNKNOWN_OPTION',
    'queues.emails.retention.audit',
    'archive',
  ],
  [
    'clusterEvents with an interval of 1 ms',
    { clusterEvents: { interval: 1 } },
    'CHOKAQ_INVALID_DURATION',
    'clusterEvents.interval',
    '1 (number)',
  ],
  [
    'a tracerProvider without getTracer',
    { telemetry: { tracerProvider: 'otel' as never } },
    'CHOKAQ_INVALID_CONFIG',
    'telemetry.tracerProvider',
    'getTracer',
  ],
];

describe('new ChokaQ and defineJob reject bad options', () => {
  it.each(BAD_OPTIONS)('%s', async (_label, options, code, field, text) => {
    const error = await failure(
      () => new ChokaQ({ storage: memory(), logger: silentLogger, ...options }),
    );
    expect({ code: error.code, field: error.field }).toEqual({ code, field });
    expect(error.message).toContain(text);
  });

  it("rejects storage: 'postgres' (a name instead of a provider)", async () => {
    const error = await failure(() => new ChokaQ({ storage: 'postgres' as unknown as Store }));
    expect({ code: error.code, field: error.field }).toEqual({
      code: 'CHOKAQ_INVALID_CONFIG',
      field: 'storage',
    });
    expect(error.message).toContain('"postgres" (string)');
  });

  it.each<[string, Record<string, unknown>, ErrorCode, string]>([
    ['timeout 30d', { timeout: '30d' }, 'CHOKAQ_INVALID_DURATION', "job 'bad.v1'.timeout"],
    ['an unknown field', { queu: 'q' }, 'CHOKAQ_UNKNOWN_OPTION', "job 'bad.v1'.queu"],
    [
      'a circuit typo',
      { circuit: { breakDuraton: '1m' } },
      'CHOKAQ_UNKNOWN_OPTION',
      "job 'bad.v1'.circuit.breakDuraton",
    ],
    ['retryZombies -1', { retryZombies: -1 }, 'CHOKAQ_INVALID_CONFIG', "job 'bad.v1'.retryZombies"],
    [
      'a payload that is no schema',
      { payload: { parse: () => 1 } },
      'CHOKAQ_INVALID_CONFIG',
      "job 'bad.v1'.payload",
    ],
  ])('defineJob rejects %s', async (_label, extra, code, field) => {
    const error = await failure(() =>
      defineJob({ type: 'bad.v1', handle: () => undefined, ...extra } as never),
    );
    expect({ code: error.code, field: error.field }).toEqual({ code, field });
  });
});

const providers: {
  name: string;
  available: boolean;
  make: () => Store;
  cleanup: () => Promise<void>;
}[] = [
  { name: 'memory', available: true, make: () => memory(), cleanup: () => Promise.resolve() },
  (() => {
    const schema = uniqueSchema('inputs');
    return {
      name: 'postgres',
      available: pgUp,
      make: () => postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger }),
      cleanup: () => dropSchema(schema),
    };
  })(),
];

for (const provider of providers) {
  describe.skipIf(!provider.available)(
    `calls reject bad arguments and write nothing (${provider.name})`,
    () => {
      let chokaq: ChokaQ;
      let storage: Store;

      beforeAll(async () => {
        storage = provider.make();
        chokaq = new ChokaQ({ storage, jobs: [mail], logger: silentLogger, worker: false });
        await chokaq.start();
        // One of each, so a bad call that touched them would show.
        await chokaq.enqueue(mail, { to: 'ada@example.com' }, { id: 'kept-1' });
      });

      afterAll(async () => {
        await chokaq.stop();
        await provider.cleanup();
      });

      /** Everything a call could have written. */
      async function contents(): Promise<unknown> {
        return {
          hot: (await storage.operator.listHot({ limit: 1000 })).map((j) => [
            j.id,
            j.state,
            j.priority,
          ]),
          archive: (await storage.operator.listArchive({ limit: 1000 })).map((j) => j.id),
          dead: (await storage.operator.listDead({ limit: 1000 })).map((j) => j.id),
          queues: (await storage.queues.listQueues()).map((q) => [q.name, q.paused, q.maxWorkers]),
        };
      }

      const calls: [string, () => unknown, ErrorCode, string, string][] = [
        [
          'delay 1e20',
          () => chokaq.enqueue(mail, { to: 'x' }, { delay: 1e20 }),
          'CHOKAQ_INVALID_DURATION',
          'options.delay',
          '100000000000000000000 (number)',
        ],
        [
          'runAt as a string',
          () => chokaq.enqueue(mail, { to: 'x' }, { runAt: '2026-12-24' as never }),
          'CHOKAQ_INVALID_ARGUMENT',
          'options.runAt',
          '"2026-12-24" (string)',
        ],
        [
          'an enqueue option typo',
          () => chokaq.enqueue(mail, { to: 'x' }, { priorty: 5 } as never),
          'CHOKAQ_UNKNOWN_OPTION',
          'options.priorty',
          'priority',
        ],
        [
          'an idempotency key of 42',
          () => chokaq.enqueue(mail, { to: 'x' }, { idempotencyKey: 42 as never }),
          'CHOKAQ_INVALID_IDEMPOTENCY_KEY',
          'options.idempotencyKey',
          '42 (number)',
        ],
        [
          'enqueueMany given an object',
          () => chokaq.enqueueMany(mail, { payload: { to: 'x' } } as never),
          'CHOKAQ_INVALID_ARGUMENT',
          'items',
          'an object',
        ],
        [
          'enqueueMany with one bad item among good ones',
          () =>
            chokaq.enqueueMany(mail, [
              { payload: { to: 'a' } },
              { payload: { to: 'b' } },
              { payload: { to: 'c' }, priority: 1.5 },
            ]),
          'CHOKAQ_INVALID_PRIORITY',
          'items[2].priority',
          '1.5 (number)',
        ],
        [
          // The default an item takes from its definition is checked with the first item that
          // takes it, whatever came before (a hand-made definition is not checked by defineJob).
          'a hand-made definition with a bad queue, its first item setting a good one',
          () =>
            chokaq.enqueueMany(
              {
                type: 'hand.made',
                queue: 'a b',
                handle: () => undefined,
              } as unknown as typeof mail,
              [{ payload: { to: 'a' }, queue: 'fine' }, { payload: { to: 'b' } }],
            ),
          'CHOKAQ_INVALID_QUEUE',
          'items[1].queue',
          '"a b"',
        ],
        [
          'a job that is neither a definition nor a key',
          () => chokaq.enqueue({ type: 1 } as never, {} as never),
          'CHOKAQ_INVALID_ARGUMENT',
          'job',
          'an object',
        ],
        [
          "dlq.list reason 'fatal'",
          () => chokaq.dlq.list({ reason: 'fatal' as never }),
          'CHOKAQ_INVALID_FILTER',
          'filter.reason',
          '"fatal" (string)',
        ],
        [
          "listJobs state 'bogus'",
          () => chokaq.listJobs({ state: 'bogus' as never }),
          'CHOKAQ_INVALID_FILTER',
          'filter.state',
          '"bogus" (string)',
        ],
        [
          'a filter typo',
          () => chokaq.dlq.list({ queues: 'q' } as never),
          'CHOKAQ_UNKNOWN_OPTION',
          'filter.queues',
          'queue',
        ],
        [
          'limit -1',
          () => chokaq.listJobs({ limit: -1 }),
          'CHOKAQ_INVALID_ARGUMENT',
          'filter.limit',
          '-1 (number)',
        ],
        [
          'limit 1.5',
          () => chokaq.listArchive({ limit: 1.5 }),
          'CHOKAQ_INVALID_ARGUMENT',
          'filter.limit',
          '1.5 (number)',
        ],
        [
          'limit NaN',
          () => chokaq.dlq.list({ limit: Number.NaN }),
          'CHOKAQ_INVALID_ARGUMENT',
          'filter.limit',
          'NaN (number)',
        ],
        [
          'limit 1e10',
          () => chokaq.listJobs({ limit: 1e10 }),
          'CHOKAQ_INVALID_ARGUMENT',
          'filter.limit',
          '10000000000 (number)',
        ],
        [
          'resurrect given a filter',
          () => chokaq.dlq.resurrect({ queue: 'default' } as never),
          'CHOKAQ_INVALID_ARGUMENT',
          'ids',
          'an object',
        ],
        [
          'purge given one id as a string',
          () => chokaq.dlq.purge('kept-1' as never),
          'CHOKAQ_INVALID_ARGUMENT',
          'ids',
          '"kept-1" (string)',
        ],
        [
          'cancel with a blank id among good ones',
          () => chokaq.cancel(['kept-1', ' ']),
          'CHOKAQ_INVALID_JOB_ID',
          'ids[1]',
          '" " (string)',
        ],
        [
          'resurrect with a bad priority',
          () => chokaq.dlq.resurrect(['kept-1'], { priority: 2 ** 40 }),
          'CHOKAQ_INVALID_PRIORITY',
          'options.priority',
          '(number)',
        ],
        [
          'an actor too long',
          () => chokaq.cancel(['kept-1'], { actor: 'a'.repeat(101) }),
          'CHOKAQ_INVALID_ARGUMENT',
          'options.actor',
          '100 characters',
        ],
        [
          'maxWorkers 0',
          () => chokaq.queues.setMaxWorkers('default', 0),
          'CHOKAQ_INVALID_ARGUMENT',
          'maxWorkers',
          '0 (number)',
        ],
        [
          'a bad queue name',
          () => chokaq.queues.pause('no spaces'),
          'CHOKAQ_INVALID_QUEUE',
          'queue',
          '"no spaces" (string)',
        ],
        [
          'setConcurrency 1e9',
          () => chokaq.setConcurrency(1e9),
          'CHOKAQ_INVALID_ARGUMENT',
          'concurrency',
          '1000000000 (number)',
        ],
        [
          'an unknown event',
          () => chokaq.on('job:finished' as never, () => undefined),
          'CHOKAQ_INVALID_ARGUMENT',
          'event',
          '"job:finished" (string)',
        ],
        [
          "jobs.query state 'failed'",
          () => chokaq.jobs.query({ state: ['dead', 'failed'] as never }),
          'CHOKAQ_INVALID_FILTER',
          'query.state[1]',
          '"failed" (string)',
        ],
        [
          "jobs.query reason 'fatal'",
          () => chokaq.jobs.query({ reason: 'fatal' as never }),
          'CHOKAQ_INVALID_FILTER',
          'query.reason[0]',
          '"fatal" (string)',
        ],
        [
          'jobs.query with a filter typo',
          () => chokaq.jobs.query({ states: ['dead'] } as never),
          'CHOKAQ_UNKNOWN_OPTION',
          'query.states',
          'state',
        ],
        [
          "jobs.query sort 'priority'",
          () => chokaq.jobs.query({ sort: 'priority' as never }),
          'CHOKAQ_INVALID_ARGUMENT',
          'query.sort',
          '"priority" (string)',
        ],
        [
          'jobs.query sort finishedAt over pending jobs',
          () => chokaq.jobs.query({ sort: 'finishedAt', state: 'pending' }),
          'CHOKAQ_INVALID_ARGUMENT',
          'query.sort',
          'finished jobs only',
        ],
        [
          'jobs.query limit 1001',
          () => chokaq.jobs.query({ limit: 1001 }),
          'CHOKAQ_INVALID_ARGUMENT',
          'query.limit',
          '1001 (number)',
        ],
        [
          'jobs.query with a made-up cursor',
          () => chokaq.jobs.query({ cursor: 'bm90LWEtY3Vyc29y' }),
          'CHOKAQ_INVALID_CURSOR',
          'query.cursor',
          'not a cursor',
        ],
        [
          'jobs.query created.from not a date',
          () => chokaq.jobs.query({ created: { from: 'yesterday' } }),
          'CHOKAQ_INVALID_FILTER',
          'query.created.from',
          '"yesterday" (string)',
        ],
        [
          'jobs.query attempts.min -1',
          () => chokaq.jobs.query({ attempts: { min: -1 } }),
          'CHOKAQ_INVALID_FILTER',
          'query.attempts.min',
          '-1 (number)',
        ],
        [
          'jobs.query payload a string',
          () => chokaq.jobs.query({ payload: 'to' as never }),
          'CHOKAQ_INVALID_FILTER',
          'query.payload',
          '"to" (string)',
        ],
        [
          'jobs.query queue with a space',
          () => chokaq.jobs.query({ queue: ['ok', 'no spaces'] }),
          'CHOKAQ_INVALID_QUEUE',
          'query.queue[1]',
          '"no spaces" (string)',
        ],
        [
          'jobs.count with an unknown state',
          () => chokaq.jobs.count({ state: 'done' as never }),
          'CHOKAQ_INVALID_FILTER',
          'query.state[0]',
          '"done" (string)',
        ],
        [
          'jobs.edit with a bad priority',
          () => chokaq.jobs.edit('kept-1', { priority: 0.5 }),
          'CHOKAQ_INVALID_PRIORITY',
          'edit.priority',
          '0.5 (number)',
        ],
        [
          'jobs.edit with a payload failing its schema',
          () => chokaq.jobs.edit('kept-1', { payload: { to: 42 } }),
          'CHOKAQ_PAYLOAD_INVALID',
          'edit.payload',
          'to',
        ],
        [
          'jobs.edit with runAt not a date',
          () => chokaq.jobs.edit('kept-1', { runAt: 'soon' as never }),
          'CHOKAQ_INVALID_ARGUMENT',
          'edit.runAt',
          '"soon" (string)',
        ],
        [
          'dlq.groups with a typo',
          () => chokaq.dlq.groups({ queues: ['a'] } as never),
          'CHOKAQ_UNKNOWN_OPTION',
          'filter.queues',
          'queue',
        ],
        [
          'getJob of a number',
          () => chokaq.getJob(42 as never),
          'CHOKAQ_INVALID_JOB_ID',
          'id',
          '42 (number)',
        ],
      ];

      it.each(calls)('%s', async (_label, call, code, field, text) => {
        const before = await contents();
        const error = await failure(call);
        expect({ code: error.code, field: error.field }).toEqual({ code, field });
        expect(error.message).toContain(text);
        expect(await contents()).toEqual(before);
      });
    },
  );
}
