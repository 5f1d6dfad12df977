/**
 * `chokaq status` tells the system's health, as The Deck's System panel does: due jobs that no
 * live worker runs, by queue and type with why, and each part that is not ok, as text and as
 * JSON (`health`, what `chokaq.health.system()` returns), on the embedded store and PostgreSQL.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, silentLogger, type Store, type SystemHealth } from '../../src/index.js';
import { embedded } from '../../src/storage/embedded/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { runCli, type CliResult } from '../helpers/cli.js';

const pgUp = await postgresAvailable();
const dirs: string[] = [];
const schemas: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  for (const schema of schemas) await dropSchema(schema);
});

/** Runs the CLI in-process with captured output, no environment and no input. */
const cli = (args: string[]): Promise<CliResult> => runCli(args, { answer: null });

const orphan = defineJob({ type: 'ledger.close.v1', queue: 'ledger', handle: () => undefined });

/** Enqueues three due jobs of a type whose app then stops: no live worker runs them. */
async function strand(storage: Store): Promise<void> {
  const app = new ChokaQ({ storage, jobs: [orphan], logger: silentLogger });
  try {
    await app.enqueueMany(
      orphan,
      Array.from({ length: 3 }, (_, k) => ({ payload: { day: k } })),
    );
  } finally {
    await app.stop();
  }
}

const providers = [
  {
    name: 'embedded',
    skip: false,
    setup: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'chokaq-cli-health-'));
      dirs.push(dir);
      const dataDir = join(dir, 'store');
      await strand(embedded({ dataDir, logger: silentLogger }));
      return ['--data-dir', dataDir];
    },
  },
  {
    name: 'PostgreSQL',
    skip: !pgUp,
    setup: async () => {
      const schema = uniqueSchema('clihealth');
      schemas.push(schema);
      await strand(postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger }));
      return ['--database-url', TEST_DATABASE_URL, '--schema', schema];
    },
  },
];

describe.each(providers)('chokaq status on $name', ({ skip, setup }) => {
  it.skipIf(skip)(
    'flags due jobs no live worker runs, with queue, type and why, as text and as JSON',
    async () => {
      const flags = await setup();
      const text = await cli(['status', ...flags]);
      expect(text.code, text.err).toBe(0);
      expect(text.out).toMatch(/\nhealth: (degraded|unhealthy)\n/);
      expect(text.out).toMatch(
        /\ndue jobs no live worker runs\nQUEUE +TYPE +DUE +WAITING +WHY\nledger +ledger\.close\.v1 +3 +\S+ +no live worker serves this queue\n/,
      );

      const json = await cli(['status', ...flags, '--json']);
      const report = JSON.parse(json.out) as { queues: unknown[]; health: SystemHealth };
      expect(report.queues.length).toBeGreaterThan(0);
      expect(report.health.status).not.toBe('ok');
      expect(report.health.stranded).toMatchObject([
        { queue: 'ledger', type: 'ledger.close.v1', due: 3, reason: 'no-worker-serves-queue' },
      ]);
    },
    60_000,
  );
});
