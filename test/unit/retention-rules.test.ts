import { describe, expect, it } from 'vitest';
import { resolveRetention } from '../../src/config/retention.js';
import { DEFAULT_AGES } from '../../src/runtime/retention-ages.js';
import { retentionRules } from '../../src/runtime/retention.js';

describe('retention rules', () => {
  it('make one rule per table, queues with their own age apart', () => {
    const settings = resolveRetention(
      { archive: '1d', audit: null },
      { emails: { retention: { archive: '1h', dlq: null } }, other: {} },
    );
    expect(retentionRules(settings.ages, settings.queueAges)).toEqual([
      { table: 'archive', olderThanMs: 86_400_000, exceptQueues: ['emails'] },
      { table: 'archive', olderThanMs: 3_600_000, queue: 'emails' },
      { table: 'dlq', olderThanMs: DEFAULT_AGES.dlq, exceptQueues: ['emails'] },
      { table: 'metricBuckets', olderThanMs: DEFAULT_AGES.metricBuckets },
      { table: 'bulkActions', olderThanMs: DEFAULT_AGES.bulkActions },
      { table: 'scheduleTicks', olderThanMs: DEFAULT_AGES.scheduleTicks },
    ]);
  });

  it('keep a table for good when its age is null, and keep a queue when its own is', () => {
    const settings = resolveRetention({ archive: null }, { vip: { retention: { archive: '2d' } } });
    expect(
      retentionRules(settings.ages, settings.queueAges).filter((r) => r.table === 'archive'),
    ).toEqual([{ table: 'archive', olderThanMs: 2 * 86_400_000, queue: 'vip' }]);
  });

  it('turn the loop off with retention: false, keeping the default ages for a purge on demand', () => {
    const settings = resolveRetention(false);
    expect(settings.enabled).toBe(false);
    expect(settings.ages).toEqual(DEFAULT_AGES);
  });
});
