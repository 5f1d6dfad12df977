/**
 * How the SQL store's claim of a capped queue reacts to `stale`: the statement alone once more,
 * then the locked transaction; never a second transaction, and the second try asks only for what
 * the first did not return.
 */
import { describe, expect, it } from 'vitest';
import { CAPPED_TRIES_ALONE, ClaimContention, claimJobs } from '../../src/storage/sql/claim.js';
import type { LockedQueues } from '../../src/storage/sql/claim.js';
import type { Executor } from '../../src/storage/sql/executor.js';
import type { BoundQueries } from '../../src/storage/sql/schema.js';
import { BackgroundRefresh } from '../../src/util/background-refresh.js';
import { systemClock } from '../../src/util/clock.js';

const SQL = {
  claim: 'CLAIM_UNCAPPED',
  claim_capped: 'CLAIM',
  claim_keyed: 'CLAIM_KEYED',
  claim_lock_capped_queues: 'LOCK',
} as unknown as BoundQueries;

/** A claimed row as claim.sql returns it (fetched, not started). */
function row(id: string, stale: boolean): Record<string, unknown> {
  return {
    id,
    queue: 'capped',
    type: 'job',
    payload: '{}',
    status: 1,
    attempts: 0,
    worker_id: 'w',
    lease_token: 'lease',
    trace_parent: null,
    run_at: 0,
    created_at: 0,
    stale,
  };
}

/** An executor answering claims from `answers` in turn and recording every statement. */
function fakeDb(answers: Record<string, unknown>[][]): {
  db: Executor;
  calls: { sql: string; params: readonly unknown[]; inTransaction: boolean }[];
} {
  const calls: { sql: string; params: readonly unknown[]; inTransaction: boolean }[] = [];
  const executor = (inTransaction: boolean): Executor => ({
    kind: 'fake',
    query: <R>(sql: string, params: readonly unknown[] = []): Promise<R[]> => {
      calls.push({ sql, params, inTransaction });
      return Promise.resolve((sql === 'LOCK' ? [] : (answers.shift() ?? [])) as R[]);
    },
    run: () => Promise.resolve(),
    transaction: <T>(fn: (tx: Executor) => Promise<T>): Promise<T> => fn(executor(true)),
    close: () => Promise.resolve(),
  });
  return { db: executor(false), calls };
}

const queues = new BackgroundRefresh<LockedQueues>({
  read: () => Promise.resolve({ capped: ['capped'], keyed: [], limited: [] }),
  maxAgeMs: 60_000,
  clock: systemClock,
  onError: () => undefined,
  initial: { capped: ['capped'], keyed: [], limited: [] },
});

const request = { workerId: 'w', limit: 5, queues: null, types: ['job'] };

describe('claim of a capped queue after a stale statement', () => {
  it('takes one statement when it is fresh', async () => {
    const { db, calls } = fakeDb([[row('a', false)]]);
    const jobs = await claimJobs(db, SQL, queues, request, new ClaimContention(), null);
    expect(jobs.map((job) => job.id)).toEqual(['a']);
    expect(calls).toEqual([
      {
        sql: 'CLAIM',
        params: ['w', 5, null, expect.any(String), false, ['job'], ['capped'], null],
        inTransaction: false,
      },
    ]);
  });

  it('runs alone once more for the rest when the first came back stale', async () => {
    const { db, calls } = fakeDb([[row('a', true)], [row('b', false)]]);
    const jobs = await claimJobs(db, SQL, queues, request, new ClaimContention(), null);
    expect(jobs.map((job) => job.id)).toEqual(['a', 'b']);
    expect(calls.map((call) => [call.sql, call.params[1], call.params[4]])).toEqual([
      ['CLAIM', 5, false],
      ['CLAIM', 4, false],
    ]);
  });

  it(`claims in the locked transaction after ${CAPPED_TRIES_ALONE} stale statements`, async () => {
    const stale = { ...row('x', true), id: null };
    const { db, calls } = fakeDb([[stale], [stale], [row('c', false)]]);
    const contention = new ClaimContention();
    const jobs = await claimJobs(db, SQL, queues, request, contention, null);
    expect(jobs.map((job) => job.id)).toEqual(['c']);
    expect(calls.map((call) => [call.sql, call.inTransaction])).toEqual([
      ['CLAIM', false],
      ['CLAIM', false],
      ['LOCK', true],
      ['CLAIM', true],
    ]);
    expect(calls[2]?.params).toEqual([['capped']]);
    expect(calls[3]?.params[4]).toBe(true);
    // Contention of capped queues does not send claims of limited keys to the transaction.
    expect(contention.recent).toBe(false);
  });
});
