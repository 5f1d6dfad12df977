/**
 * The conformance of the `JobStore` (`store.jobs`), the verbs that move jobs, in one file per
 * part of its contract:
 *
 * - enqueue.ts: `enqueue` (fields, ids, idempotency keys, new queues);
 * - claim.ts: `claim` and `start` (order, queue and type filters, `maxWorkers`, one claimer);
 * - concurrency-keys.ts, keyed-claims.ts: claims under concurrency keys;
 * - settle.ts: `settle` (archive, retry, dead-letter, release; the fields settles keep);
 * - handoff.ts: `settleAndClaim` (a freed capped slot handed to the settling worker);
 * - recovery.ts: `heartbeat`, lost runs, `cancel` and `rescue`;
 * - scheduled.ts: scheduled jobs and `promote`.
 */
import type { ConformanceContext } from '../context.js';
import { describeClaims } from './claim.js';
import { describeConcurrencyKeys } from './concurrency-keys.js';
import { describeEnqueue } from './enqueue.js';
import { describeHandoff } from './handoff.js';
import { describeKeyedClaims } from './keyed-claims.js';
import { describeRecovery } from './recovery.js';
import { describeScheduledJobs } from './scheduled.js';
import { describeSettle } from './settle.js';

/** Registers the job-store conformance tests; call inside the provider's `describe`. */
export function describeJobStore(ctx: ConformanceContext): void {
  describeEnqueue(ctx);
  describeClaims(ctx);
  describeConcurrencyKeys(ctx);
  describeKeyedClaims(ctx);
  describeSettle(ctx);
  describeHandoff(ctx);
  describeRecovery(ctx);
  describeScheduledJobs(ctx);
}
