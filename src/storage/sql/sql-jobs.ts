/**
 * The jobs capability over SQL ({@link JobStore}): enqueue, claim, start, settle (with the capped
 * slots handed to the settling worker), heartbeat, rescue, promotion and cancellation. The
 * algorithms live beside it (`enqueue-batch.ts`, `claim.ts`, `settle-batch.ts`, `handoff.ts`,
 * `recovery.ts`); this part runs them on the store's connection and wakes whom they concern.
 */
import type {
  ClaimRequest,
  HandoffRequest,
  HandoffResult,
  HeartbeatLease,
  HeartbeatResult,
  JobStore,
  Lease,
  PromoteResult,
  RescueOptions,
  RescueResult,
  Settlement,
} from '../job-store.js';
import type { CancelResult, ClaimedJob, EnqueueResult, NewJob } from '../model.js';
import { hasDependencies, linkedJobs } from '../dependency-links.js';
import { claimJobs } from './claim.js';
import { enqueueJobs } from './enqueue-batch.js';
import { isArchiveIdTaken } from './errors.js';
import type { Executor } from './executor.js';
import { handoffParams, handoffQueues, readHandoffRows } from './handoff.js';
import { cancelIn, rescueIn } from './recovery.js';
import { claimedJobOf, toNumber } from './rows.js';
import { archiveLeftovers, evictParams, groupSettlements, settleOutcome } from './settle-batch.js';
import type { SqlContext } from './sql-context.js';
import * as run from './statements.js';
import { linkIn, type SqlWorkflows } from './workflows.js';
import type { SettleArchiveParams } from './statements.js';

/**
 * What a settle moved: job ids, the queues whose slots it freed for others, the moved jobs that
 * others depend on, jobs it started.
 */
interface SettledRows {
  moved: Set<string>;
  freed: string[];
  dependents: string[];
  started: ClaimedJob[];
}

/** Adds the rows of a statement that moved jobs out of the hot table to `done`. */
function noteMoved(
  done: SettledRows,
  rows: readonly { id: string; queue: string; has_dependents?: boolean | null }[],
): void {
  for (const row of rows) {
    done.moved.add(row.id);
    done.freed.push(row.queue);
    if (row.has_dependents === true) done.dependents.push(row.id);
  }
}

/** A job's life cycle over SQL. */
export class SqlJobs implements JobStore {
  /**
   * @param context The connection, statements and wake-ups shared by the store's parts.
   * @param workflows The resolver, asked about the dependents of the jobs a settle, rescue or
   *   cancel moved out of the hot table.
   */
  constructor(
    protected readonly context: SqlContext,
    private readonly workflows: SqlWorkflows,
  ) {}

  async enqueue(jobs: readonly NewJob[]): Promise<EnqueueResult[]> {
    if (jobs.length === 0) return [];
    const db = await this.context.db();
    // The insert may carry its queue's wake-up itself (WakeNotifier.carry); it then needs no other.
    let carried: string | undefined;
    const wakeIn = (queue: string): string | null => {
      if (!this.context.carry(queue)) return null;
      carried = queue;
      return this.context.channel;
    };
    let results: EnqueueResult[];
    try {
      results = await this.enqueueOn(db, jobs, wakeIn);
    } finally {
      if (carried !== undefined) this.context.carried();
    }
    this.context.wake(queuesCreated(jobs, results).filter((queue) => queue !== carried));
    return results;
  }

  /**
   * Runs the enqueue algorithm on `db` (the pool, or a caller's transaction; `wakeIn`: see
   * `enqueueJobs`). Keyed jobs in a
   * queue not yet known as keyed (or limited) make this process re-read the list before its next
   * claim.
   */
  async enqueueOn(
    db: Executor,
    jobs: readonly NewJob[],
    wakeIn?: (queue: string) => string | null,
  ): Promise<EnqueueResult[]> {
    const { sql, capped } = this.context;
    const now = this.context.now();
    // Jobs with dependencies need their links in the insert's transaction (a caller's
    // transaction is one already).
    const results = jobs.some(hasDependencies)
      ? await db.transaction(async (tx) => {
          const inserted = await enqueueJobs(tx, sql, jobs, now);
          await linkIn(tx, sql, now, linkedJobs(jobs, inserted));
          return inserted;
        })
      : await enqueueJobs(db, sql, jobs, now, wakeIn);
    const known = capped.peek();
    const unknown = (job: NewJob): boolean =>
      (job.concurrencyKey ?? null) !== null &&
      (known?.keyed.includes(job.queue) !== true ||
        ((job.concurrencyLimit ?? null) !== null && !known.limited.includes(job.queue)));
    if (jobs.some(unknown)) capped.invalidate();
    return results;
  }

  async claim(request: ClaimRequest): Promise<ClaimedJob[]> {
    const { sql, capped, contention } = this.context;
    const db = await this.context.laneDb('claim');
    return claimJobs(db, sql, capped, request, contention, this.context.now());
  }

  async start(leases: readonly Lease[]): Promise<ClaimedJob[]> {
    if (leases.length === 0) return [];
    // On the pool, not the settle rounds' kept connection: the worker's gate for strict starts
    // writes marks too, and its handler must not wait behind a settle round.
    const db = await this.context.db();
    const rows = await run.start(db, this.context.sql, {
      ids: leases.map((l) => l.id),
      workerIds: leases.map((l) => l.workerId),
      leaseTokens: leases.map((l) => l.leaseToken),
      now: this.context.now(),
    });
    return rows.map(claimedJobOf);
  }

  async settle(settlements: readonly Settlement[]): Promise<boolean[]> {
    return (await this.settleHandingOff(settlements, null)).applied;
  }

  /** {@inheritDoc JobStore.settleAndClaim} */
  settleAndClaim(
    settlements: readonly Settlement[],
    handoff: HandoffRequest,
  ): Promise<HandoffResult> {
    return this.settleHandingOff(settlements, handoff);
  }

  /**
   * Settles; with a `handoff`, the archive is settle_archive_claim.sql (it starts the freed capped
   * slots' next jobs for the worker) when the worker serves a capped queue it may take from.
   */
  private async settleHandingOff(
    settlements: readonly Settlement[],
    handoff: HandoffRequest | null,
  ): Promise<HandoffResult> {
    if (settlements.length === 0) return { applied: [], started: [] };
    const { sql, capped } = this.context;
    const groups = groupSettlements(settlements, this.context.now());
    const db = await this.context.laneDb('settle');
    const queues =
      handoff !== null && groups.archive !== null && handoff.limit >= 1
        ? handoffQueues(await capped.get(), handoff)
        : [];
    const { archive, dead, retry, release, stepIds } = groups;
    const claiming =
      handoff !== null && archive !== null && queues.length > 0
        ? handoffParams(archive, handoff, queues)
        : null;
    // The statements whose rows are the id and queue of each job they moved, in this order.
    const moves: ((
      on: Executor,
    ) => Promise<readonly { id: string; queue: string; has_dependents?: boolean | null }[]>)[] = [];
    if (archive !== null && claiming === null) {
      moves.push((on) => run.settleArchivePlain(on, sql, archive));
    }
    if (dead !== null) moves.push((on) => run.moveToDlq(on, sql, dead));
    if (retry !== null) moves.push((on) => run.settleRetry(on, sql, retry));
    if (release !== null) moves.push((on) => run.settleRelease(on, sql, release));
    // Runs that used durable steps: the steps of those that kept no row go in the same commit.
    const statements = moves.length + (claiming === null ? 0 : 1) + (stepIds.length > 0 ? 1 : 0);
    const runAll = async (on: Executor): Promise<SettledRows> => {
      const done: SettledRows = { moved: new Set(), freed: [], dependents: [], started: [] };
      if (claiming !== null) {
        const handed = readHandoffRows(await run.settleArchiveClaim(on, sql, claiming));
        for (const [id, queue] of handed.moved) {
          done.moved.add(id);
          if (!handed.filled.has(queue)) done.freed.push(queue);
        }
        done.started.push(...handed.started);
        done.dependents.push(...handed.dependents);
      }
      for (const move of moves) noteMoved(done, await move(on));
      if (stepIds.length > 0) await run.stepForget(on, sql, { ids: stepIds });
      return done;
    };
    const done = await this.settleAtomically(db, archive, runAll, statements === 1);
    // The batch members the plain archive left (and any lost lease, which moves nowhere): their
    // own statement counts them in their batches. A round of plain jobs has none.
    const members =
      archive !== null && claiming === null ? archiveLeftovers(archive, done.moved) : null;
    if (members !== null) {
      // As in the round: the steps of those that kept no row go in the same commit.
      const left = new Set(members.ids);
      const memberSteps = stepIds.filter((id) => left.has(id));
      const settleMembers = async (on: Executor) => {
        const rows = await run.settleArchive(on, sql, members);
        if (memberSteps.length > 0) await run.stepForget(on, sql, { ids: memberSteps });
        return rows;
      };
      noteMoved(
        done,
        await this.settleAtomically(db, members, settleMembers, memberSteps.length === 0),
      );
    }
    this.context.wakeCapped(done.freed);
    await this.workflows.resolveDependentsOf(done.dependents);
    return { applied: settleOutcome(settlements, done.moved), started: done.started };
  }

  /**
   * Runs `settle` as one atomic step, retried on a deadlock: without a transaction when it is one
   * statement (atomic on its own: no BEGIN/COMMIT round trips). When an archive statement of it
   * fails because an archived job had the id of one it archives (rare: a caller-given id used
   * again), the archive rows of `archived` go first, in one transaction with `settle`.
   */
  private settleAtomically<T>(
    db: Executor,
    archived: SettleArchiveParams | null,
    settle: (on: Executor) => Promise<T>,
    oneStatement: boolean,
  ): Promise<T> {
    const { context } = this;
    return context
      .retryOnConflict('settle', () => (oneStatement ? settle(db) : db.transaction(settle)))
      .catch((error: unknown) => {
        if (archived === null || !isArchiveIdTaken(error)) throw error;
        return context.retryOnConflict('settle', () =>
          db.transaction(async (tx) => {
            await run.archiveEvict(tx, context.sql, evictParams(archived));
            return settle(tx);
          }),
        );
      });
  }

  async heartbeat(leases: readonly HeartbeatLease[]): Promise<HeartbeatResult[]> {
    if (leases.length === 0) return [];
    const db = await this.context.db();
    const rows = await run.heartbeat(db, this.context.sql, {
      ids: leases.map((l) => l.id),
      workerIds: leases.map((l) => l.workerId),
      leaseTokens: leases.map((l) => l.leaseToken),
      progress: leases.map((l) => l.progress ?? null),
      now: this.context.now(),
    });
    const alive = new Map<string, HeartbeatResult>();
    for (const row of rows) {
      alive.set(leaseKey(row.id, row.worker_id, row.lease_token), {
        alive: true,
        cancelRequested: row.cancel_requested,
        cancelRequestedBy: row.cancel_requested ? row.cancel_requested_by : null,
      });
    }
    return leases.map(
      (lease) =>
        alive.get(leaseKey(lease.id, lease.workerId, lease.leaseToken)) ?? {
          alive: false,
          cancelRequested: false,
          cancelRequestedBy: null,
        },
    );
  }

  /** {@inheritDoc JobStore.rescue} */
  async rescue(options: RescueOptions): Promise<RescueResult> {
    const { sql, schema } = this.context;
    const db = await this.context.db();
    const result = await this.context.retryOnConflict('rescue', () =>
      db.transaction((tx) => rescueIn(tx, sql, this.context.now(), schema, options)),
    );
    this.context.wakeCapped(
      [...result.dead, ...result.retried, ...result.cancelled].map((j) => j.queue),
    );
    await this.workflows.resolveDependentsOf(
      [...result.dead, ...result.cancelled].map((j) => j.id),
    );
    return result;
  }

  /** {@inheritDoc JobStore.promote} */
  async promote(limit: number): Promise<PromoteResult> {
    const db = await this.context.laneDb('upkeep');
    const rows = await run.promote(db, this.context.sql, { limit, now: this.context.now() });
    const promoted: PromoteResult['promoted'] = [];
    let nextDueInMs: number | null = null;
    for (const row of rows) {
      if (row.queue !== null) promoted.push({ queue: row.queue, count: toNumber(row.promoted) });
      if (row.next_run_at !== null) nextDueInMs = Math.max(0, row.next_run_at - row.read_at);
    }
    // This process's workers at once, the other processes' by NOTIFY (as after an enqueue).
    this.context.wakeHereFirst(promoted.map((p) => p.queue));
    return { promoted, nextDueInMs };
  }

  /** {@inheritDoc JobStore.cancel} */
  async cancel(ids: readonly string[], actor: string): Promise<CancelResult> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return { cancelled: [], requested: [] };
    const db = await this.context.db();
    const result = await this.context.retryOnConflict('cancel', () =>
      db.transaction(
        (tx) => cancelIn(tx, this.context.sql, this.context.now(), unique, actor),
        'operator',
      ),
    );
    await this.workflows.resolveDependentsOf(result.cancelled);
    return result;
  }
}

/**
 * The jobs part of a store whose backend runs statements in a caller's transaction
 * (`SqlBackend.within`): {@link SqlJobs} plus `enqueueWithin`.
 */
export class SqlJobsWithin extends SqlJobs {
  constructor(
    context: SqlContext,
    workflows: SqlWorkflows,
    private readonly within: (transaction: unknown) => Executor,
  ) {
    super(context, workflows);
  }

  /**
   * Enqueues inside the caller's open transaction, so the jobs commit or roll back with the
   * caller's own writes. Listeners are woken by a `pg_notify` in that transaction, which
   * PostgreSQL delivers only on commit.
   */
  async enqueueWithin(transaction: unknown, jobs: readonly NewJob[]): Promise<EnqueueResult[]> {
    const db = this.within(transaction);
    if (jobs.length === 0) return [];
    await this.context.db(); // migrations, and a closed store fails here
    const results = await this.enqueueOn(db, jobs);
    const queues = queuesCreated(jobs, results);
    if (queues.length > 0) {
      await run.notifyMany(db, this.context.sql, { channel: this.context.channel, queues });
    }
    return results;
  }
}

/** Identity of one lease, for matching heartbeat rows to their input. */
function leaseKey(id: string, workerId: string, leaseToken: string): string {
  return JSON.stringify([id, workerId, leaseToken]);
}

/** Distinct queues that received at least one new job. */
function queuesCreated(jobs: readonly NewJob[], results: readonly EnqueueResult[]): string[] {
  const queues = new Set<string>();
  jobs.forEach((job, index) => {
    if (results[index]?.created === true) queues.add(job.queue);
  });
  return [...queues];
}
