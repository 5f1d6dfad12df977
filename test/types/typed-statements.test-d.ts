/**
 * Type tests of the typed statements (src/storage/sql/statements.ts, generated from the headers
 * of the `.sql` files), checked by `tsc --noEmit` in `npm run lint` (vitest does not run this
 * file): a statement takes its parameters by name with their types, so a swapped, missing or
 * wrongly typed parameter does not compile, and its rows carry the declared columns.
 */
import { expectTypeOf } from 'vitest';
import type { Executor } from '../../src/storage/sql/executor.js';
import type { BoundQueries } from '../../src/storage/sql/schema.js';
import {
  claim,
  heartbeat,
  listHot,
  now,
  settleRetry,
  type ClaimRow,
} from '../../src/storage/sql/statements.js';

declare const db: Executor;
declare const sql: BoundQueries;

const claimed = claim(db, sql, {
  workerId: 'w1',
  limit: 10,
  queues: null,
  leaseToken: 'lease',
  withCapped: false,
  types: ['mail.send.v1'],
  now: null,
});
expectTypeOf(claimed).toEqualTypeOf<Promise<ClaimRow[]>>();
expectTypeOf<ClaimRow['stale']>().toEqualTypeOf<boolean>();
expectTypeOf<ClaimRow['id']>().toEqualTypeOf<string | null>();

// A swapped parameter: the limit given as the worker id and the other way round.
void claim(db, sql, {
  // @ts-expect-error a number is no worker id
  workerId: 10,
  // @ts-expect-error a string is no limit
  limit: 'w1',
  queues: null,
  leaseToken: 'lease',
  withCapped: false,
  types: null,
  now: null,
});

// @ts-expect-error a missing parameter (leaseToken)
void claim(db, sql, {
  workerId: 'w1',
  limit: 10,
  queues: null,
  withCapped: false,
  types: null,
  now: null,
});

// A statement that reads the time takes the store clock's, or null for the database's.
void claim(db, sql, {
  workerId: 'w1',
  limit: 10,
  queues: null,
  leaseToken: 'lease',
  withCapped: false,
  types: null,
  now: new Date(),
});
// @ts-expect-error a missing time (now): every call site says whose clock it reads
void claim(db, sql, {
  workerId: 'w1',
  limit: 10,
  queues: null,
  leaseToken: 'lease',
  withCapped: false,
  types: null,
});

void claim(db, sql, {
  workerId: 'w1',
  limit: 10,
  // @ts-expect-error a nullable array takes null, not undefined
  queues: undefined,
  leaseToken: 'lease',
  withCapped: false,
  types: null,
  now: null,
});

// Parallel arrays keep their element types; NULL elements only where the header says so.
void heartbeat(db, sql, {
  ids: ['a'],
  workerIds: ['w1'],
  leaseTokens: ['t'],
  progress: [null],
  now: null,
});
void settleRetry(db, sql, {
  ids: ['a'],
  workerIds: ['w1'],
  leaseTokens: ['t'],
  // @ts-expect-error status codes are numbers
  fromStatuses: ['processing'],
  delaysMs: [0],
  errors: ['boom'],
  lost: [false],
  now: null,
});
void heartbeat(db, sql, {
  // @ts-expect-error ids has no NULL elements
  ids: [null],
  workerIds: ['w1'],
  leaseTokens: ['t'],
  progress: [null],
  now: null,
});

// A statement's texts must hold its own name: another statement's text does not do.
// @ts-expect-error the texts of `now` alone hold no list_hot
void listHot(db, { now: 'SELECT 1' }, { queue: null, status: null, limit: 1 });
void now(db, { now: 'SELECT 1' }, { now: null });
