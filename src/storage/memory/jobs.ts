/**
 * The jobs capability of the memory provider: a job's way from enqueue to settle, rescue,
 * promotion and cancellation, over the store's shared tables.
 *
 * @internal Reach it through `memory().jobs`.
 */
import { uuidv7 } from '../../util/uuid.js';
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
import { hasDependencies, linkedJobs } from '../dependency-links.js';
import type { CancelResult, EnqueueResult, HotJob, NewJob } from '../model.js';
import { cancelJobs } from './cancel.js';
import { claimJobs, startJobs } from './claim.js';
import { copyHot } from './copy.js';
import { enqueueJobs } from './enqueue.js';
import { handOff } from './handoff.js';
import type { MemoryIdempotencyClaims } from './idempotency-claims.js';
import { promoteDue } from './promote.js';
import { heartbeatJobs, rescueJobs } from './recovery.js';
import { settleOne } from './settle.js';
import { checkDependencies, linkJobs, resolveDependentsOf } from './workflows.js';
import { atomically, type MemoryState } from './state.js';

/** The memory {@link JobStore}. */
export class MemoryJobs implements JobStore {
  /**
   * @param state The store's tables, clock and wake-ups.
   * @param claims The store's idempotency claims, whose expired entries a rescue deletes.
   */
  constructor(
    private readonly state: MemoryState,
    private readonly claims: Pick<MemoryIdempotencyClaims, 'purgeNow'>,
  ) {}

  /** {@inheritDoc JobStore.enqueue} */
  enqueue(jobs: readonly NewJob[]): Promise<EnqueueResult[]> {
    return atomically(() => this.insert(jobs));
  }

  /**
   * The step of {@link MemoryJobs.enqueue}, for a caller already inside an atomic operation (a
   * schedule's fire): inserts `jobs` and wakes the workers of their queues.
   */
  insert(jobs: readonly NewJob[]): EnqueueResult[] {
    const { tables } = this.state;
    const now = this.state.time();
    const linked = jobs.some(hasDependencies);
    if (linked) checkDependencies(tables, jobs); // before anything is written
    const outcome = enqueueJobs(tables, jobs, now);
    if (linked) linkJobs(tables, linkedJobs(jobs, outcome.results), now);
    this.state.wake.notify(outcome.wokenQueues);
    return outcome.results;
  }

  /** {@inheritDoc JobStore.claim} */
  claim(request: ClaimRequest): Promise<HotJob[]> {
    return atomically(() =>
      claimJobs(this.state.tables, request, uuidv7(), this.state.time()).map(copyHot),
    );
  }

  /** {@inheritDoc JobStore.start} */
  start(leases: readonly Lease[]): Promise<HotJob[]> {
    return atomically(() => startJobs(this.state.tables, leases, this.state.time()).map(copyHot));
  }

  /** {@inheritDoc JobStore.settle} */
  settle(settlements: readonly Settlement[]): Promise<boolean[]> {
    return atomically(() => {
      const { applied, released, archived } = this.settleNow(settlements, this.state.time());
      this.wakeCapped([...released, ...archived]);
      return applied;
    });
  }

  /** {@inheritDoc JobStore.settleAndClaim} */
  settleAndClaim(
    settlements: readonly Settlement[],
    handoff: HandoffRequest,
  ): Promise<HandoffResult> {
    return atomically(() => {
      const now = this.state.time();
      const { applied, released, archived } = this.settleNow(settlements, now);
      const { started, filled } = handOff(this.state.tables, archived, handoff, uuidv7(), now);
      // An archived row's queue is woken only when the hand-off left room in it.
      this.wakeCapped([...released, ...archived.filter((queue) => !filled.has(queue))]);
      return { applied, started: started.map(copyHot) };
    });
  }

  /**
   * Applies `settlements` (a lease id given twice counts once: its first occurrence, as in SQL);
   * returns what applied and the queue of each row that left fetched or processing: archived, or
   * moved otherwise (released).
   */
  private settleNow(
    settlements: readonly Settlement[],
    now: Date,
  ): { applied: boolean[]; released: string[]; archived: string[] } {
    const seen = new Set<string>();
    const released: string[] = [];
    const archived: string[] = [];
    const left: string[] = [];
    const applied = settlements.map((settlement) => {
      if (seen.has(settlement.lease.id)) return false;
      seen.add(settlement.lease.id);
      const row = this.state.tables.hot.get(settlement.lease.id);
      const done = settleOne(this.state.tables, settlement, now);
      if (done && row !== undefined) {
        (settlement.kind === 'archive' ? archived : released).push(row.queue);
        if (row.hasDependents) left.push(row.id);
      }
      return done;
    });
    this.resolveDependentsOf(left, now);
    return { applied, released, archived };
  }

  /**
   * Wakes listeners of the capped queues among `freed`, the queues of rows that just left fetched
   * or processing: a freed slot of a capped queue is claimed at once, not at the next poll.
   */
  private wakeCapped(freed: readonly string[]): void {
    const { tables, wake } = this.state;
    wake.notify(
      [...new Set(freed)].filter(
        (queue) => (tables.queues.get(queue)?.maxWorkers ?? null) !== null,
      ),
    );
  }

  /** {@inheritDoc JobStore.heartbeat} */
  heartbeat(leases: readonly HeartbeatLease[]): Promise<HeartbeatResult[]> {
    return atomically(() => heartbeatJobs(this.state.tables, leases, this.state.time()));
  }

  /**
   * {@inheritDoc JobStore.rescue}
   *
   * The memory store serves one process, so a rescue is never skipped.
   */
  rescue(options: RescueOptions): Promise<RescueResult> {
    return atomically(() => {
      const now = this.state.time();
      const outcome = rescueJobs(this.state.tables, options, now);
      this.resolveDependentsOf(
        [...outcome.dead, ...outcome.cancelled].map((j) => j.id),
        now,
      );
      this.wakeCapped(
        [...outcome.dead, ...outcome.retried, ...outcome.cancelled].map((j) => j.queue),
      );
      return { skipped: false, ...outcome, idempotencyClaimsPurged: this.claims.purgeNow() };
    });
  }

  /** {@inheritDoc JobStore.promote} */
  promote(limit: number): Promise<PromoteResult> {
    return atomically(() => {
      const result = promoteDue(this.state.tables, this.state.time(), limit);
      this.state.wake.notify(result.promoted.map((p) => p.queue));
      return result;
    });
  }

  /** {@inheritDoc JobStore.cancel} */
  cancel(ids: readonly string[], actor: string): Promise<CancelResult> {
    return atomically(() => {
      const now = this.state.time();
      const result = cancelJobs(this.state.tables, ids, actor, now);
      this.resolveDependentsOf(result.cancelled, now);
      return result;
    });
  }

  /**
   * Decides the awaiting jobs that depend on `ids` (jobs that just left the hot table), in the
   * same atomic step, and wakes the queues of those released.
   */
  private resolveDependentsOf(ids: readonly string[], now: Date): void {
    if (ids.length === 0) return;
    const { released } = resolveDependentsOf(this.state.tables, ids, now);
    this.state.wake.notify([...new Set(released.map((job) => job.queue))]);
  }
}
