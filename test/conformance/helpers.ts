/**
 * Plain helpers shared by the conformance files (and a few pg and unit tests): job builders, lease
 * extraction, bounded waits, error texts, and a claim whose jobs are started at once.
 */
import type { ClaimedJob, HotJob, NewJob } from '../../src/storage/model.js';
import type { ClaimRequest, Lease } from '../../src/storage/job-store.js';
import type { Store } from '../../src/storage/store.js';
import { uuidv7 } from '../../src/util/uuid.js';

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` every 10 ms; resolves `false` once `timeoutMs` passed without it holding. */
export async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(10);
  }
  return true;
}

/** A valid job with defaults; `overrides` wins. */
export function newJob(overrides: Partial<NewJob> = {}): NewJob {
  return {
    id: uuidv7(),
    queue: 'default',
    type: 'conformance.job',
    payload: '{"n":1}',
    priority: 10,
    delayMs: 0,
    idempotencyKey: null,
    tags: null,
    createdBy: null,
    ...overrides,
  };
}

/** An error text as `describeError` stores it: the stack of a thrown Error. */
export function stackOf(message: string, frame = 'sendMail (/srv/app/jobs/mail.js:10:5)'): string {
  return `TypeError: ${message}\n    at ${frame}\n    at run (/srv/app/node_modules/chokaq/dist/x.js:1:1)`;
}

export function leaseOf(job: Pick<HotJob, 'id' | 'state' | 'workerId' | 'leaseToken'>): Lease {
  if (job.workerId === null || job.leaseToken === null) {
    throw new Error(`job ${job.id} has no lease (state ${job.state})`);
  }
  return { id: job.id, workerId: job.workerId, leaseToken: job.leaseToken };
}

export function ids(rows: readonly { id: string }[]): string[] {
  return rows.map((row) => row.id);
}

export function sorted(values: readonly string[]): string[] {
  return [...values].sort();
}

/** Claims for `request` and starts every claimed job (fetched → processing); the started rows. */
export async function claimAndStart(store: Store, request: ClaimRequest): Promise<ClaimedJob[]> {
  const claimed = await store.jobs.claim(request);
  return store.jobs.start(claimed.map(leaseOf));
}
