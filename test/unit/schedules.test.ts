/**
 * Recurring jobs on the memory store under a fake clock: ticks fire once each, every missed-tick
 * policy after a restart, overlap, pause and resume, trigger, update, remove, and the job's
 * record of its schedule and tick. No real time passes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  ChokaQ,
  defineJob,
  silentLogger,
  type ChokaQEventMap,
  type Schedule,
} from '../../src/index.js';
import { FakeClock, memory } from '../../src/testing/index.js';
import type { Store } from '../../src/storage/store.js';

const START = Date.UTC(2026, 0, 1, 10, 0, 0);
const running: ChokaQ[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop()));
});

/** A started ChokaQ on `store` with the given schedules; its worker runs no job type. */
async function engine(store: Store, clock: FakeClock, schedules: Schedule[]): Promise<ChokaQ> {
  const chokaq = new ChokaQ({ storage: store, clock, logger: silentLogger, schedules });
  running.push(chokaq);
  await chokaq.start();
  return chokaq;
}

/** The `createdBy` of every job the schedules made, sorted. */
async function origins(chokaq: ChokaQ): Promise<string[]> {
  const jobs = await chokaq.listJobs({ limit: 1000 });
  return jobs
    .map((job) => job.createdBy ?? '')
    .filter((by) => by.startsWith('schedule:'))
    .sort();
}

const tick = (name: string, iso: string) => `schedule:${name}@${iso}`;

describe('schedules on a fake clock', () => {
  it('fire one job per tick, recording the schedule and the tick', async () => {
    const clock = new FakeClock(START);
    const chokaq = await engine(memory({ clock }), clock, [
      {
        name: 'every-10s',
        job: 'report.v1',
        every: '10s',
        payload: (t) => ({ at: t.toISOString() }),
        tags: 'nightly',
      },
    ]);
    const fired: ChokaQEventMap['schedule:fired'][] = [];
    chokaq.on('schedule:fired', (e) => fired.push(e));
    await clock.advanceAsync(35_000);
    expect(await origins(chokaq)).toEqual([
      tick('every-10s', '2026-01-01T10:00:10.000Z'),
      tick('every-10s', '2026-01-01T10:00:20.000Z'),
      tick('every-10s', '2026-01-01T10:00:30.000Z'),
    ]);
    expect(fired.map((e) => [e.schedule, e.tickAt.toISOString(), e.outcome])).toEqual([
      ['every-10s', '2026-01-01T10:00:10.000Z', 'enqueued'],
      ['every-10s', '2026-01-01T10:00:20.000Z', 'enqueued'],
      ['every-10s', '2026-01-01T10:00:30.000Z', 'enqueued'],
    ]);
    const [job] = await chokaq.listJobs({ limit: 1 });
    expect(job?.tags).toBe('nightly');
    expect(JSON.parse(job?.payload ?? 'null')).toEqual({ at: job?.createdBy?.split('@')[1] });
    const info = await chokaq.schedules.get('every-10s');
    expect(info?.lastRun).toMatchObject({
      tickAt: new Date('2026-01-01T10:00:30.000Z'),
      outcome: 'enqueued',
      jobState: 'pending',
    });
    expect(info?.nextRuns.map((d) => d.toISOString())).toEqual([
      '2026-01-01T10:00:40.000Z',
      '2026-01-01T10:00:50.000Z',
      '2026-01-01T10:01:00.000Z',
      '2026-01-01T10:01:10.000Z',
      '2026-01-01T10:01:20.000Z',
    ]);
  });

  it('two schedulers on one store still fire each tick once', async () => {
    const clock = new FakeClock(START);
    const store = memory({ clock });
    const schedule: Schedule = { name: 'twice', job: 'report.v1', cron: '*/5 * * * * *' };
    const a = await engine(store, clock, [schedule]);
    await engine(store, clock, [schedule]);
    await clock.advanceAsync(30_000);
    const seen = await origins(a);
    expect(seen).toHaveLength(6);
    expect(new Set(seen).size).toBe(6);
  });

  describe('after downtime, the missed-tick policy applies', () => {
    /** Runs a minutely schedule for 2 min, stops, waits `downMs`, restarts: the ticks made. */
    async function restartAfter(
      missed: NonNullable<Schedule['missed']>,
      downMs: number,
    ): Promise<string[]> {
      const clock = new FakeClock(START);
      const store = memory({ clock });
      const schedule: Schedule = {
        name: 'minutely',
        job: 'report.v1',
        cron: '* * * * *',
        missed,
        missedAfter: '30s',
        catchUpLimit: 3,
      };
      const first = await engine(store, clock, [schedule]);
      await clock.advanceAsync(125_000);
      await first.stop();
      clock.advance(downMs);
      const second = await engine(store, clock, [schedule]);
      await clock.advanceAsync(1000);
      return (await origins(second)).map((o) => o.slice(-13, -8));
    }

    it('skip: none of the missed ticks run', async () => {
      // Up at 10:02:05 + 10 min → 10:12:05; 10:03 … 10:12 missed; 10:12 is within 30 s.
      expect(await restartAfter('skip', 600_000)).toEqual(['10:01', '10:02', '10:12']);
    });

    it('latest: the latest missed tick runs once', async () => {
      // Back at 10:12:50: 10:12 is 50 s late (missed), so it alone runs.
      expect(await restartAfter('latest', 645_000)).toEqual(['10:01', '10:02', '10:12']);
    });

    it('all: the missed ticks run, at most catchUpLimit of them', async () => {
      expect(await restartAfter('all', 645_000)).toEqual([
        '10:01',
        '10:02',
        '10:10',
        '10:11',
        '10:12',
      ]);
    });
  });

  it("overlap 'skip' skips a tick while the previous job is still pending", async () => {
    const clock = new FakeClock(START);
    const chokaq = await engine(memory({ clock }), clock, [
      { name: 'no-overlap', job: 'report.v1', every: '1m', overlap: 'skip' },
    ]);
    await clock.advanceAsync(185_000);
    // The first job is never run (no worker knows its type): later ticks are skipped.
    expect(await origins(chokaq)).toEqual([tick('no-overlap', '2026-01-01T10:01:00.000Z')]);
    const info = await chokaq.schedules.get('no-overlap');
    expect(info?.lastRun).toMatchObject({
      tickAt: new Date('2026-01-01T10:03:00.000Z'),
      outcome: 'skipped',
      jobId: null,
      jobState: null,
    });
  });

  it("overlap 'skip' fires again once the previous job finished", async () => {
    const clock = new FakeClock(START);
    const seen: string[] = [];
    const report = defineJob({
      type: 'report.run.v1',
      handle: (_p, ctx) => {
        seen.push(ctx.id);
      },
    });
    const chokaq = new ChokaQ({
      storage: memory({ clock }),
      clock,
      logger: silentLogger,
      jobs: [report],
      schedules: [{ name: 'runs', job: report, every: '1m', overlap: 'skip' }],
    });
    running.push(chokaq);
    await chokaq.start();
    await clock.advanceAsync(185_000);
    expect(seen).toHaveLength(3);
    expect((await chokaq.schedules.get('runs'))?.lastRun?.jobState).toBe('succeeded');
  });

  it('pause stops ticks everywhere; resume does not fire the paused ones', async () => {
    const clock = new FakeClock(START);
    const chokaq = await engine(memory({ clock }), clock, [
      { name: 'p', job: 'report.v1', every: '1m', missed: 'all' },
    ]);
    await clock.advanceAsync(61_000);
    expect((await chokaq.schedules.pause('p', { actor: 'ops' })).paused).toBe(true);
    expect((await chokaq.schedules.get('p'))?.nextRuns).toEqual([]);
    await clock.advanceAsync(180_000);
    expect(await origins(chokaq)).toHaveLength(1);
    await chokaq.schedules.resume('p');
    await clock.advanceAsync(60_000);
    expect(await origins(chokaq)).toEqual([
      tick('p', '2026-01-01T10:01:00.000Z'),
      tick('p', '2026-01-01T10:05:00.000Z'),
    ]);
    const audit = await chokaq.audit.list({ limit: 10 });
    expect(audit.map((e) => e.action)).toEqual(
      expect.arrayContaining(['schedule-pause', 'schedule-resume']),
    );
  });

  it('trigger enqueues now, also while paused, without moving the schedule', async () => {
    const clock = new FakeClock(START);
    const chokaq = await engine(memory({ clock }), clock, [
      {
        name: 't',
        job: 'report.v1',
        cron: '0 3 * * *',
        timeZone: 'Europe/Berlin',
        payload: { n: 1 },
      },
    ]);
    await chokaq.schedules.pause('t');
    const fired = await chokaq.schedules.trigger('t');
    expect(fired.tickAt.getTime()).toBe(START);
    const job = await chokaq.getJob(fired.jobId);
    expect(job?.job.createdBy).toBe(tick('t', '2026-01-01T10:00:00.000Z'));
    expect((await chokaq.schedules.get('t'))?.lastRun).toMatchObject({
      manual: true,
      outcome: 'enqueued',
    });
    await chokaq.schedules.resume('t');
    expect((await chokaq.schedules.get('t'))?.nextRuns[0]?.toISOString()).toBe(
      '2026-01-02T02:00:00.000Z',
    );
  });

  it('add, update and remove at run time', async () => {
    const clock = new FakeClock(START);
    const chokaq = await engine(memory({ clock }), clock, []);
    const added = await chokaq.schedules.add({
      name: 'rt',
      job: 'report.v1',
      every: '1m',
      payload: { v: 1 },
    });
    expect(added).toMatchObject({
      name: 'rt',
      everyMs: 60_000,
      cron: null,
      payload: { v: 1 },
      paused: false,
    });
    await clock.advanceAsync(61_000);
    const updated = await chokaq.schedules.update('rt', { cron: '*/2 * * * *', payload: { v: 2 } });
    expect(updated).toMatchObject({ cron: '*/2 * * * *', everyMs: null, payload: { v: 2 } });
    await clock.advanceAsync(60_000);
    const jobs = await chokaq.listJobs({ limit: 10 });
    expect(jobs.map((j) => [j.createdBy, j.payload]).sort()).toEqual([
      [tick('rt', '2026-01-01T10:01:00.000Z'), '{"v":1}'],
      [tick('rt', '2026-01-01T10:02:00.000Z'), '{"v":2}'],
    ]);
    expect(await chokaq.schedules.remove('rt')).toBe(true);
    expect(await chokaq.schedules.remove('rt')).toBe(false);
    expect(await chokaq.schedules.list()).toEqual([]);
    await expect(chokaq.schedules.pause('rt')).rejects.toMatchObject({
      code: 'CHOKAQ_SCHEDULE_NOT_FOUND',
    });
  });

  it('a payload function that throws at a tick records a failed tick', async () => {
    const clock = new FakeClock(START);
    let calls = 0;
    const chokaq = await engine(memory({ clock }), clock, [
      {
        name: 'flaky',
        job: 'report.v1',
        every: '1m',
        payload: () => {
          calls++;
          if (calls > 1) throw new Error('upstream down');
          return {};
        },
      },
    ]);
    await clock.advanceAsync(61_000);
    expect((await chokaq.schedules.get('flaky'))?.lastRun).toMatchObject({
      outcome: 'failed',
      error: expect.stringContaining('upstream down') as unknown,
    });
  });

  it('a schedule that cannot be read does not keep the others from firing', async () => {
    const clock = new FakeClock(START);
    const store = memory({ clock });
    // As if written by another version: a definition this one cannot use.
    await store.schedules.save('alien', '{"cron":"not a cron","timeZone":"UTC"}');
    const chokaq = await engine(store, clock, [{ name: 'fine', job: 'report.v1', every: '1m' }]);
    await clock.advanceAsync(61_000);
    expect(await origins(chokaq)).toEqual([tick('fine', '2026-01-01T10:01:00.000Z')]);
  });

  it('jitter delays the job, not the tick', async () => {
    const clock = new FakeClock(START);
    const chokaq = await engine(memory({ clock }), clock, [
      { name: 'j', job: 'report.v1', every: '1m', jitter: '30s' },
    ]);
    await clock.advanceAsync(60_000);
    const [job] = await chokaq.listJobs({ limit: 1 });
    expect(job?.createdBy).toBe(tick('j', '2026-01-01T10:01:00.000Z'));
    const delay = (job?.runAt.getTime() ?? 0) - Date.UTC(2026, 0, 1, 10, 1);
    expect(delay).toBeGreaterThanOrEqual(0);
    expect(delay).toBeLessThan(30_000);
  });
});

describe('schedule definitions', () => {
  const storage = memory();
  const make = (schedule: unknown) =>
    new ChokaQ({ storage, logger: silentLogger, schedules: [schedule as Schedule] });
  const base = { name: 's', job: 'report.v1' };

  it('are counted in the configuration report', () => {
    const schedules: Schedule[] = [
      { ...base, every: '1m' },
      { ...base, name: 't', cron: '0 * * * *' },
    ];
    const chokaq = new ChokaQ({ storage, logger: silentLogger, schedules });
    expect(chokaq.configuration().declaredSchedules).toBe(2);
    expect(make({ ...base, every: '1m' }).configuration().declaredSchedules).toBe(1);
  });

  it.each([
    [{ ...base, cron: '61 * * * *' }, 'CHOKAQ_INVALID_SCHEDULE', 'schedules[0].cron', '61'],
    [{ ...base, cron: '* * * *' }, 'CHOKAQ_INVALID_SCHEDULE', 'schedules[0].cron', '* * * *'],
    [{ ...base, cron: '0 0 0 * * * *' }, 'CHOKAQ_INVALID_SCHEDULE', 'schedules[0].cron', '7'],
    [
      { ...base, cron: '0 0 30 2 *' },
      'CHOKAQ_INVALID_SCHEDULE',
      'schedules[0].cron',
      'never fires',
    ],
    [
      { ...base, cron: '* * * * *', timeZone: 'Mars/Olympus' },
      'CHOKAQ_INVALID_SCHEDULE',
      'schedules[0].timeZone',
      'Mars/Olympus',
    ],
    [{ ...base, every: '500ms' }, 'CHOKAQ_INVALID_SCHEDULE', 'schedules[0].every', '500ms'],
    [{ ...base, every: 'often' }, 'CHOKAQ_INVALID_DURATION', 'schedules[0].every', 'often'],
    [{ ...base }, 'CHOKAQ_INVALID_SCHEDULE', 'schedules[0].cron', 'exactly one'],
    [
      { ...base, cron: '* * * * *', every: '1m' },
      'CHOKAQ_INVALID_SCHEDULE',
      'schedules[0].every',
      'exactly one',
    ],
    [{ ...base, cron: '* * * * *', crom: 1 }, 'CHOKAQ_UNKNOWN_OPTION', 'schedules[0].crom', 'cron'],
    [
      { ...base, cron: '* * * * *', missed: 'some' },
      'CHOKAQ_INVALID_SCHEDULE',
      'schedules[0].missed',
      'some',
    ],
    [
      { ...base, name: 'bad name!', cron: '* * * * *' },
      'CHOKAQ_INVALID_SCHEDULE',
      'schedules[0].name',
      'bad name!',
    ],
    [
      { ...base, cron: '* * * * *', endAt: new Date(Date.now() - 1000) },
      'CHOKAQ_INVALID_SCHEDULE',
      'schedules[0].endAt',
      'future',
    ],
    [
      {
        ...base,
        cron: '* * * * *',
        payload: () => {
          throw new Error('no tenant');
        },
      },
      'CHOKAQ_INVALID_SCHEDULE',
      'schedules[0].payload',
      'no tenant',
    ],
    [
      { ...base, cron: '* * * * *', payload: () => Promise.resolve({}) },
      'CHOKAQ_INVALID_SCHEDULE',
      'schedules[0].payload',
      'returned a promise',
    ],
  ])('rejects %j', (schedule, code, field, text) => {
    let caught: unknown;
    try {
      make(schedule);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code, field });
    expect(String((caught as Error).message)).toContain(text);
  });

  it('rejects a name used twice', () => {
    expect(
      () =>
        new ChokaQ({
          storage,
          logger: silentLogger,
          schedules: [
            { name: 'x', job: 'a', every: '1m' },
            { name: 'x', job: 'b', every: '1m' },
          ],
        }),
    ).toThrow(
      expect.objectContaining({ code: 'CHOKAQ_INVALID_SCHEDULE', field: 'schedules[1].name' }),
    );
  });

  it('checks a static payload against the job schema when the schedule is saved', async () => {
    const typed = defineJob({
      type: 'typed.v1',
      payload: z.object({ n: z.number() }),
      handle() {},
    });
    const chokaq = new ChokaQ({
      storage: memory(),
      logger: silentLogger,
      jobs: [typed],
      worker: false,
    });
    running.push(chokaq);
    await expect(
      chokaq.schedules.add({ name: 'typed', job: typed, every: '1m', payload: { n: 'x' } }),
    ).rejects.toMatchObject({ code: 'CHOKAQ_PAYLOAD_INVALID', field: 'schedule.payload' });
    expect(await chokaq.schedules.list()).toEqual([]);
  });
});
