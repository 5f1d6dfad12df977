/**
 * The tick plan of one scheduler pass, as pure functions: every missed-tick policy, intervals,
 * end dates, daylight saving in Europe/Berlin, and next fire times ten years ahead.
 */
import { describe, expect, it } from 'vitest';
import {
  isRepeatedWallTime,
  MAX_TICKS_PER_PASS,
  nextTicks,
  planTicks,
  tickSeries,
  type TickRule,
} from '../../src/schedule/ticks.js';

const at = (iso: string) => new Date(iso);
const iso = (dates: readonly Date[]) => dates.map((d) => d.toISOString());

function rule(overrides: Partial<TickRule> = {}): TickRule {
  return {
    cron: '* * * * *',
    everyMs: null,
    timeZone: 'UTC',
    missed: 'skip',
    missedAfterMs: 60_000,
    catchUpLimit: 100,
    endAt: null,
    ...overrides,
  };
}

function plan(r: TickRule, cursor: string, now: string, anchor = '2026-01-01T00:00:00Z') {
  return planTicks(r, tickSeries(r, at(anchor)), at(cursor), at(now));
}

describe('tick plans', () => {
  it('fires the on-time tick and moves the cursor to it', () => {
    const p = plan(rule(), '2026-01-01T10:00:00Z', '2026-01-01T10:01:00.200Z');
    expect(iso(p.fire)).toEqual(['2026-01-01T10:01:00.000Z']);
    expect(p.upTo?.toISOString()).toBe('2026-01-01T10:01:00.000Z');
    expect(p.passedOver).toBe(false);
  });

  it('fires nothing before the next tick is due', () => {
    const p = plan(rule(), '2026-01-01T10:01:00Z', '2026-01-01T10:01:59.999Z');
    expect(p.fire).toEqual([]);
    expect(p.upTo).toBeNull();
  });

  it('skip: after downtime, missed ticks do not fire, the cursor passes them', () => {
    // Down from 10:00 to 12:30:30: ticks up to 12:29 are missed (more than a minute late).
    const p = plan(rule(), '2026-01-01T10:00:00Z', '2026-01-01T12:30:30Z');
    expect(iso(p.fire)).toEqual(['2026-01-01T12:30:00.000Z']);
    expect(p.upTo?.toISOString()).toBe('2026-01-01T12:30:00.000Z');
    expect(p.passedOver).toBe(true);
  });

  it('skip: with no on-time tick, nothing fires and the cursor still passes the missed ones', () => {
    const r = rule({ cron: '0 * * * *' });
    const p = plan(r, '2026-01-01T05:00:00Z', '2026-01-01T08:30:00Z');
    expect(p.fire).toEqual([]);
    expect(p.upTo?.toISOString()).toBe('2026-01-01T08:00:00.000Z');
    expect(p.passedOver).toBe(true);
  });

  it('latest: after downtime, the latest missed tick fires once', () => {
    const r = rule({ cron: '0 * * * *', missed: 'latest' });
    const p = plan(r, '2026-01-01T05:00:00Z', '2026-01-01T08:30:00Z');
    expect(iso(p.fire)).toEqual(['2026-01-01T08:00:00.000Z']);
    expect(p.passedOver).toBe(true);
  });

  it('latest: an on-time tick is the one run; older missed ticks are passed over', () => {
    const p = plan(rule({ missed: 'latest' }), '2026-01-01T10:00:00Z', '2026-01-01T12:30:30Z');
    expect(iso(p.fire)).toEqual(['2026-01-01T12:30:00.000Z']);
  });

  it('latest: a single missed tick fires and nothing is passed over', () => {
    const r = rule({ cron: '0 * * * *', missed: 'latest' });
    const p = plan(r, '2026-01-01T07:00:00Z', '2026-01-01T08:30:00Z');
    expect(iso(p.fire)).toEqual(['2026-01-01T08:00:00.000Z']);
    expect(p.passedOver).toBe(false);
  });

  it('all: every missed tick fires, oldest first, then the on-time one', () => {
    const r = rule({ cron: '0 * * * *', missed: 'all' });
    const p = plan(r, '2026-01-01T05:00:00Z', '2026-01-01T08:00:10Z');
    expect(iso(p.fire)).toEqual([
      '2026-01-01T06:00:00.000Z',
      '2026-01-01T07:00:00.000Z',
      '2026-01-01T08:00:00.000Z',
    ]);
    expect(p.passedOver).toBe(false);
  });

  it('all: at most catchUpLimit missed ticks fire, the latest ones', () => {
    const r = rule({ cron: '0 * * * *', missed: 'all', catchUpLimit: 2 });
    const p = plan(r, '2026-01-01T00:00:00Z', '2026-01-01T08:30:00Z');
    expect(iso(p.fire)).toEqual(['2026-01-01T07:00:00.000Z', '2026-01-01T08:00:00.000Z']);
    expect(p.passedOver).toBe(true);
  });

  it('bounds the ticks of one pass', () => {
    const r = rule({ cron: '* * * * * *', missed: 'all', catchUpLimit: 10_000 });
    const p = plan(r, '2026-01-01T00:00:00Z', '2026-01-01T05:00:00Z');
    expect(p.fire).toHaveLength(MAX_TICKS_PER_PASS);
    expect(p.upTo).toEqual(p.fire.at(-1));
  });

  it('a skip over a long outage of an every-second schedule stays cheap', () => {
    const r = rule({ cron: '* * * * * *' });
    const started = performance.now();
    const p = plan(r, '2026-01-01T00:00:00Z', '2026-01-31T00:00:00.500Z');
    expect(performance.now() - started).toBeLessThan(2000);
    expect(p.fire).toHaveLength(60);
    expect(p.upTo?.toISOString()).toBe('2026-01-31T00:00:00.000Z');
  });

  it('intervals count from the anchor', () => {
    const r = rule({ cron: null, everyMs: 90_000, missedAfterMs: 300_000 });
    const p = plan(r, '2026-01-01T00:00:00Z', '2026-01-01T00:03:10Z');
    expect(iso(p.fire)).toEqual(['2026-01-01T00:01:30.000Z', '2026-01-01T00:03:00.000Z']);
    const series = tickSeries(r, at('2026-01-01T00:00:00Z'));
    expect(series.after(at('2026-01-01T00:03:00Z'))?.toISOString()).toBe(
      '2026-01-01T00:04:30.000Z',
    );
    expect(iso(series.atOrBefore(at('2026-01-01T00:04:00Z'), 5))).toEqual([
      '2026-01-01T00:03:00.000Z',
      '2026-01-01T00:01:30.000Z',
    ]);
  });

  it('no tick fires after the end date', () => {
    const r = rule({ cron: '0 * * * *', missed: 'all', endAt: at('2026-01-01T07:30:00Z') });
    const p = plan(r, '2026-01-01T05:00:00Z', '2026-01-01T09:00:10Z');
    expect(iso(p.fire)).toEqual(['2026-01-01T06:00:00.000Z', '2026-01-01T07:00:00.000Z']);
    const series = tickSeries(r, at('2026-01-01T00:00:00Z'));
    expect(series.after(at('2026-01-01T07:00:00Z'))).toBeNull();
  });
});

describe('daylight saving in Europe/Berlin', () => {
  const berlin = (cron: string) =>
    tickSeries(rule({ cron, timeZone: 'Europe/Berlin' }), at('2026-01-01T00:00:00Z'));

  it('a time that occurs twice (25 October 2026, 02:00–03:00) fires once', () => {
    // 02:30 happens at 00:30Z (summer time) and again at 01:30Z (winter time).
    expect(iso(nextTicks(berlin('30 2 * * *'), at('2026-10-24T12:00:00Z'), 2))).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
    // An hourly expression fires at 02:00 once, then 03:00 winter time.
    expect(iso(nextTicks(berlin('0 * * * *'), at('2026-10-24T23:30:00Z'), 3))).toEqual([
      '2026-10-25T00:00:00.000Z',
      '2026-10-25T02:00:00.000Z',
      '2026-10-25T03:00:00.000Z',
    ]);
    expect(isRepeatedWallTime(at('2026-10-25T01:00:00Z'), 'Europe/Berlin')).toBe(true);
    expect(isRepeatedWallTime(at('2026-10-25T00:00:00Z'), 'Europe/Berlin')).toBe(false);
  });

  it('a fixed time that does not occur (29 March 2026, 02:00–03:00) fires at 03:00', () => {
    expect(iso(nextTicks(berlin('30 2 * * *'), at('2026-03-28T12:00:00Z'), 2))).toEqual([
      '2026-03-29T01:00:00.000Z', // 03:00 summer time
      '2026-03-30T00:30:00.000Z',
    ]);
    // A list counts as fixed too.
    expect(iso(nextTicks(berlin('30 2,14 * * *'), at('2026-03-28T14:00:00Z'), 2))).toEqual([
      '2026-03-29T01:00:00.000Z',
      '2026-03-29T12:30:00.000Z', // 14:30 summer time
    ]);
  });

  it('wildcard times in the gap are skipped', () => {
    expect(iso(nextTicks(berlin('*/30 * * * *'), at('2026-03-29T00:15:00Z'), 3))).toEqual([
      '2026-03-29T00:30:00.000Z', // 01:30 winter time
      '2026-03-29T01:00:00.000Z', // 03:00 summer time: 02:00 and 02:30 do not exist
      '2026-03-29T01:30:00.000Z',
    ]);
  });

  it('a missed-tick catch-up over the repeated hour fires each wall time once', () => {
    const r = rule({ cron: '*/30 * * * *', timeZone: 'Europe/Berlin', missed: 'all' });
    const p = plan(r, '2026-10-24T23:45:00Z', '2026-10-25T02:10:00Z');
    // 02:00 and 02:30 once each (summer time), then 03:00 and 03:30 (winter time) and 04:00... up to now.
    expect(iso(p.fire)).toEqual([
      '2026-10-25T00:00:00.000Z',
      '2026-10-25T00:30:00.000Z',
      '2026-10-25T02:00:00.000Z',
    ]);
  });
});

describe('next fire times', () => {
  it('are computed ten years ahead in a shifting zone', () => {
    const series = tickSeries(
      rule({ cron: '0 3 * * *', timeZone: 'Europe/Berlin' }),
      at('2026-01-01T00:00:00Z'),
    );
    const started = performance.now();
    // 03:00 Berlin: 02:00Z in winter, 01:00Z in summer, across the 2036 switch.
    expect(iso(nextTicks(series, at('2036-03-29T00:00:00Z'), 3))).toEqual([
      '2036-03-29T02:00:00.000Z',
      '2036-03-30T01:00:00.000Z',
      '2036-03-31T01:00:00.000Z',
    ]);
    // 26 October 2036: clocks go back at 03:00, so 03:00 occurs once, in winter time.
    expect(iso(nextTicks(series, at('2036-10-25T00:00:00Z'), 3))).toEqual([
      '2036-10-25T01:00:00.000Z',
      '2036-10-26T02:00:00.000Z',
      '2036-10-27T02:00:00.000Z',
    ]);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('honour 6-field expressions with seconds', () => {
    const series = tickSeries(rule({ cron: '*/15 * * * * *' }), at('2026-01-01T00:00:00Z'));
    expect(iso(nextTicks(series, at('2026-01-01T00:00:00Z'), 3))).toEqual([
      '2026-01-01T00:00:15.000Z',
      '2026-01-01T00:00:30.000Z',
      '2026-01-01T00:00:45.000Z',
    ]);
  });
});
