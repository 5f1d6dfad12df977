/**
 * The rules behind what The Deck's screens say: an error group is rising only against its usual
 * rate; a bulk action says what it acted on, and an expired preview is not in progress; due jobs
 * are stranded only when no live worker serves their queue or runs their type; a worker is
 * unhealthy when silent past two heartbeats; a queue's lag is judged by its own thresholds.
 */
import { describe, expect, it } from 'vitest';
import { bulkSummary, shownStatus } from '../../src/deck/ui/lib/bulk-summary.js';
import { trendLabel } from '../../src/deck/ui/lib/group-trend.js';
import { strandedWork, systemHealth, thresholdsOf } from '../../src/observability/health/system.js';
import type { DueTypeCount, QueueGauges, WorkerPresence } from '../../src/storage/model.js';

const hours = (recent: number[], before = 0): number[] => [
  ...Array.from({ length: 21 }, () => before),
  ...recent,
];

describe('error group trend', () => {
  it('is new, not rising, when every job joined in the last 3 hours', () => {
    expect(trendLabel(hours([0, 40, 200]))).toBe('new');
  });
  it('is rising only past 1.5 times the usual rate of the 21 hours before', () => {
    expect(trendLabel(hours([10, 10, 10], 6))).toBe('rising');
    expect(trendLabel(hours([9, 9, 9], 6))).toBe('steady');
    expect(trendLabel(hours([0, 0, 0], 6))).toBe('quiet');
  });
});

describe('bulk action summary', () => {
  it('says what the action acted on and how many jobs', () => {
    expect(bulkSummary({ target: { ids: ['a', 'b'] }, total: 2 })).toBe('2 jobs: chosen by id');
    expect(bulkSummary({ target: { errorGroup: '0123456789abcdef' }, total: 1200 })).toBe(
      '1,200 jobs: error group 0123456789ab',
    );
    expect(
      bulkSummary({
        target: { query: { state: 'dead', queue: ['mail', 'sms'], errorText: 'timeout' } },
        total: 40,
      }),
    ).toBe('40 jobs: state dead, queue mail or sms, error "timeout"');
    expect(bulkSummary({ target: { flow: 'job-7' }, total: 4 })).toBe(
      '4 jobs: the flow of job job-7',
    );
  });
  it('shows a preview whose token expired as expired, not in progress', () => {
    const expiresAt = new Date(1000);
    expect(shownStatus({ status: 'previewed', expiresAt }, 999)).toBe('previewed');
    expect(shownStatus({ status: 'previewed', expiresAt }, 1000)).toBe('expired');
    expect(shownStatus({ status: 'succeeded', expiresAt }, 5000)).toBe('succeeded');
  });
});

const NOW = Date.UTC(2026, 11, 3, 12);

function worker(over: Partial<WorkerPresence>): WorkerPresence {
  return {
    id: 'w1',
    host: 'h',
    pid: 1,
    startedAt: new Date(NOW - 60_000),
    lastSeenAt: new Date(NOW - 1000),
    concurrency: 4,
    running: 0,
    queues: null,
    circuits: [],
    version: '0',
    types: ['mail.send.v1'],
    breakers: [],
    lag: null,
    health: { status: 'ok', message: 'claiming; 0 running' },
    ...over,
  };
}

const due = (queue: string, type: string, n = 5): DueTypeCount => ({
  queue,
  type,
  due: n,
  oldestDueAt: new Date(NOW - 90_000),
});

describe('stranded work', () => {
  it('flags due jobs of a queue no live worker serves, and of a type no serving worker runs', () => {
    const workers = [worker({ queues: ['mail', 'chokaq.operator'] })];
    const stranded = strandedWork(
      [due('mail', 'mail.send.v1'), due('mail', 'Invoice.Render.v2'), due('reports', 'x')],
      workers,
      NOW,
    );
    expect(stranded.map((s) => [s.queue, s.type, s.reason, s.waitingMs])).toEqual([
      ['mail', 'Invoice.Render.v2', 'no-worker-runs-type', 90_000],
      ['reports', 'x', 'no-worker-serves-queue', 90_000],
    ]);
  });
  it('trusts a worker that runs every type (pipe) or recorded none (an older ChokaQ)', () => {
    expect(strandedWork([due('mail', 'any')], [worker({ types: null })], NOW)).toEqual([]);
  });
  it('compares types as claims do, case-insensitively', () => {
    expect(
      strandedWork([due('mail', 'mail.send.v1')], [worker({ types: ['Mail.Send.V1'] })], NOW),
    ).toEqual([]);
  });
});

describe('system health', () => {
  const gauge = (queue: string, lagMs: number, over: Partial<QueueGauges> = {}): QueueGauges => ({
    queue,
    paused: false,
    active: true,
    due: 1,
    scheduled: 0,
    awaiting: 0,
    fetched: 0,
    processing: 0,
    dead: 0,
    oldestDueAt: new Date(NOW - lagMs),
    succeededTotal: 0,
    failedTotal: 0,
    readAt: new Date(NOW),
    ...over,
  });
  const settings = {
    lag: { degradedMs: 30_000, unhealthyMs: 300_000 },
    queueLag: { fast: { degradedMs: 1000, unhealthyMs: 5000 } },
    stallTimeoutMs: 30_000,
  };
  const db = { name: 'chokaq_db' as const, status: 'ok' as const, message: 'ok', data: {} };

  it('judges each queue by its own thresholds, and a paused one never', () => {
    const health = systemHealth({
      db,
      gauges: [gauge('fast', 6000), gauge('slow', 6000), gauge('held', 999_999, { paused: true })],
      workers: [worker({})],
      dueByType: [],
      strandedCapped: false,
      now: new Date(NOW),
      settings,
    });
    expect(health.queues.map((q) => [q.queue, q.status])).toEqual([
      ['fast', 'unhealthy'],
      ['slow', 'ok'],
      ['held', 'ok'],
    ]);
    expect(health.status).toBe('unhealthy');
  });

  it('calls a worker silent past two heartbeats unhealthy, and else says what it said of itself', () => {
    const health = systemHealth({
      db,
      gauges: [],
      workers: [
        worker({ id: 'quiet', lastSeenAt: new Date(NOW - 25_000) }),
        worker({
          id: 'stalled',
          health: { status: 'unhealthy', message: 'the event loop stalled for 40000 ms lately' },
        }),
        worker({ id: 'fine' }),
      ],
      dueByType: [due('mail', 'other.v1')],
      strandedCapped: false,
      now: new Date(NOW),
      settings,
    });
    expect(health.workers.map((w) => [w.id, w.status])).toEqual([
      ['quiet', 'unhealthy'],
      ['stalled', 'unhealthy'],
      ['fine', 'ok'],
    ]);
    expect(health.workers[0]!.message).toContain('not heard from for 25 s');
    expect(health.workers[1]!.message).toContain('stalled');
    expect(health.stranded).toHaveLength(1);
  });
});

describe('lag thresholds of a queue', () => {
  const own = { lag: { degradedMs: 30_000, unhealthyMs: 300_000 }, queueLag: {} };
  it("are those of the live workers serving it, the strictest, else this process's", () => {
    const strict = worker({
      id: 'a',
      queues: ['mail'],
      lag: {
        degradedMs: 30_000,
        unhealthyMs: 300_000,
        queues: { mail: { degradedMs: 1000, unhealthyMs: 5000 } },
      },
    });
    const loose = worker({
      id: 'b',
      lag: { degradedMs: 60_000, unhealthyMs: 600_000, queues: {} },
    });
    expect(thresholdsOf('mail', [strict, loose], own)).toEqual({
      degradedMs: 1000,
      unhealthyMs: 5000,
    });
    expect(thresholdsOf('sms', [strict, loose], own)).toEqual({
      degradedMs: 60_000,
      unhealthyMs: 600_000,
    });
    // Workers that recorded none (an older ChokaQ): this process's own.
    expect(thresholdsOf('mail', [worker({})], own)).toEqual(own.lag);
  });
});
