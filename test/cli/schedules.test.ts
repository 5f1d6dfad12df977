/**
 * `chokaq schedules list|pause|resume|trigger` against a PostgreSQL schema whose schedules were
 * added through the API; the CLI runs in-process with captured output.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChokaQ, silentLogger, type ScheduleInfo } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { runCli, type CliResult } from '../helpers/cli.js';

const pgUp = await postgresAvailable();

const cli = (args: string[]): Promise<CliResult> => runCli(args);

describe.skipIf(!pgUp)('chokaq schedules', () => {
  const schema = uniqueSchema('cli_sched');
  const store = ['--database-url', TEST_DATABASE_URL, '--schema', schema];
  let chokaq: ChokaQ;
  let dir = '';

  beforeAll(async () => {
    chokaq = new ChokaQ({
      storage: postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger }),
      logger: silentLogger,
      worker: false,
    });
    await chokaq.schedules.add({
      name: 'nightly',
      job: 'report.build.v1',
      cron: '0 3 * * *',
      timeZone: 'Europe/Berlin',
      payload: { kind: 'nightly' },
    });
    await chokaq.schedules.add({
      name: 'by-function',
      job: 'report.build.v1',
      every: '1h',
      payload: () => ({ made: 'here' }),
    });
    dir = await mkdtemp(join(tmpdir(), 'chokaq-cli-sched-'));
    // A worker module that defines the function payload, for `trigger --module`.
    await writeFile(
      join(dir, 'module.mjs'),
      `export default { jobs: [], schedules: [{ name: 'by-function', job: 'report.build.v1', every: '1h', payload: (tick) => ({ made: 'module', at: tick.toISOString() }) }] };\n`,
    );
  });

  afterAll(async () => {
    await chokaq?.stop();
    if (pgUp) await dropSchema(schema);
    if (dir !== '') await rm(dir, { recursive: true, force: true });
  });

  it('lists the schedules with their next run, as a table and as JSON', async () => {
    const text = await cli(['schedules', 'list', ...store]);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^NAME +WHEN +TYPE +STATE +NEXT +LAST RUN$/m);
    expect(text.out).toMatch(
      /^nightly +0 3 \* \* \* \(Europe\/Berlin\) +report\.build\.v1 +active +\d{4}-\d\d-\d\d 0[12]:00:00Z +-$/m,
    );
    expect(text.out).toMatch(/^by-function +every 3600s /m);
    const json = await cli(['schedules', 'list', ...store, '--json']);
    const list = JSON.parse(json.out) as ScheduleInfo[];
    expect(list.map((s) => [s.name, s.payloadFunction, s.nextRuns.length])).toEqual([
      ['by-function', true, 5],
      ['nightly', false, 5],
    ]);
  });

  it('pauses and resumes a schedule', async () => {
    const paused = await cli([
      'schedules',
      'pause',
      'nightly',
      ...store,
      '--reason',
      'maintenance',
    ]);
    expect(paused).toMatchObject({ code: 0, out: 'nightly is paused\n' });
    expect((await chokaq.schedules.get('nightly'))?.paused).toBe(true);
    const resumed = await cli(['schedules', 'resume', 'nightly', ...store, '--json']);
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.out)).toMatchObject({ name: 'nightly', paused: false });
    const audit = await chokaq.audit.list({ limit: 10 });
    expect(audit.find((e) => e.action === 'schedule-pause')).toMatchObject({
      reason: 'maintenance',
      target: { schedule: 'nightly' },
    });
  });

  it('triggers a schedule now; its job records the schedule and the tick', async () => {
    const result = await cli(['schedules', 'trigger', 'nightly', ...store, '--json']);
    expect(result.code).toBe(0);
    const fired = JSON.parse(result.out) as { jobId: string; tickAt: string };
    const job = await chokaq.getJob(fired.jobId);
    expect(job?.job.createdBy).toBe(`schedule:nightly@${fired.tickAt}`);
    expect(job?.job.payload).toBe('{"kind":"nightly"}');
    const text = await cli(['schedules', 'list', ...store]);
    expect(text.out).toMatch(/^nightly .* \(trigger\) enqueued, pending$/m);
  });

  it('triggers a function payload only with the module that defines it', async () => {
    const without = await cli(['schedules', 'trigger', 'by-function', ...store]);
    expect(without.code).toBe(1);
    expect(without.err).toMatch(/no payload function in this process.*CHOKAQ_INVALID_SCHEDULE/);
    const module = join(dir, 'module.mjs');
    const result = await cli([
      'schedules',
      'trigger',
      'by-function',
      ...store,
      '--module',
      module,
      '--json',
    ]);
    expect(result.code).toBe(0);
    const fired = JSON.parse(result.out) as { jobId: string; tickAt: string };
    const job = await chokaq.getJob(fired.jobId);
    expect(JSON.parse(job?.job.payload ?? 'null')).toEqual({ made: 'module', at: fired.tickAt });
  });

  it('fails with one line for an unknown schedule or a missing name', async () => {
    const unknown = await cli(['schedules', 'pause', 'nope', ...store]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/no schedule is named "nope" \(CHOKAQ_SCHEDULE_NOT_FOUND\)/);
    const missing = await cli(['schedules', 'trigger', ...store]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/needs exactly one schedule name/);
    const sub = await cli(['schedules', 'explode', ...store]);
    expect(sub.code).toBe(2);
  });
});
