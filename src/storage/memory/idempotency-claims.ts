/**
 * Idempotency claims of the memory provider (SPEC F100, §4.8): one map per store, process-local.
 * Every method does its work synchronously before its promise settles, so each call is atomic
 * with respect to every other call, like a single SQL statement.
 *
 * @internal Reach it through `memory().idempotencyClaims`.
 */
import type { Clock } from '../../util/clock.js';
import { checkClaimKey, checkClaimTtl } from '../claim-input.js';
import type { ClaimBegin, IdempotencyClaims } from '../idempotency.js';
import { atomically } from './state.js';

/** One key's entry. */
interface ClaimEntry {
  state: 'in-progress' | 'completed';
  /** The job that claimed (and, once completed, completed) the key. */
  jobId: string;
  /** Epoch ms after which the entry behaves as absent; `null` = never. */
  expiresAt: number | null;
  /** Epoch ms of the last change: the claim, or the completion. */
  updatedAt: number;
}

/**
 * How many {@link MemoryIdempotencyClaims} operations run between two opportunistic purges of
 * expired entries.
 * @default 64
 */
export const PURGE_EVERY_OPERATIONS = 64;

/** The memory {@link IdempotencyClaims}: entries expire by the injected clock. */
export class MemoryIdempotencyClaims implements IdempotencyClaims {
  private readonly clock: Clock;
  private readonly entries = new Map<string, ClaimEntry>();
  private operations = 0;

  /** @param clock Source of "now" for expiry; the owning store's clock. */
  constructor(clock: Clock) {
    this.clock = clock;
  }

  /** {@inheritDoc IdempotencyClaims.begin} */
  begin(key: string, jobId: string, inProgressTtlMs: number): Promise<ClaimBegin> {
    return atomically(() => {
      checkClaimKey(key);
      checkClaimTtl(inProgressTtlMs, 'inProgressTtlMs');
      const now = this.tick();
      const live = this.live(key, now);
      if (live?.state === 'completed') {
        return { status: 'completed', jobId: live.jobId, completedAt: new Date(live.updatedAt) };
      }
      if (live?.state === 'in-progress') return { status: 'in-progress', jobId: live.jobId };
      // Absent or expired: the claim overwrites whatever was there.
      this.entries.set(key, {
        state: 'in-progress',
        jobId,
        expiresAt: now + inProgressTtlMs,
        updatedAt: now,
      });
      return { status: 'claimed' };
    });
  }

  /** {@inheritDoc IdempotencyClaims.complete} */
  complete(key: string, jobId: string, resultTtlMs: number | null): Promise<boolean> {
    return atomically(() => {
      if (resultTtlMs !== null) checkClaimTtl(resultTtlMs, 'resultTtlMs');
      const now = this.tick();
      const entry = this.ownedInProgress(key, jobId, now);
      if (entry === undefined) return false;
      entry.state = 'completed';
      entry.expiresAt = resultTtlMs === null ? null : now + resultTtlMs;
      entry.updatedAt = now;
      return true;
    });
  }

  /** {@inheritDoc IdempotencyClaims.release} */
  release(key: string, jobId: string): Promise<boolean> {
    return atomically(() => {
      const now = this.tick();
      if (this.ownedInProgress(key, jobId, now) === undefined) return false;
      this.entries.delete(key);
      return true;
    });
  }

  /** {@inheritDoc IdempotencyClaims.purgeExpired} */
  purgeExpired(): Promise<number> {
    return atomically(() => this.purgeNow());
  }

  /** Deletes expired entries at once (the memory store's rescue pass); returns how many. */
  purgeNow(): number {
    return this.purge(this.clock.now());
  }

  /** Counts one operation, purging every {@link PURGE_EVERY_OPERATIONS}; returns "now". */
  private tick(): number {
    const now = this.clock.now();
    this.operations += 1;
    if (this.operations >= PURGE_EVERY_OPERATIONS) {
      this.operations = 0;
      this.purge(now);
    }
    return now;
  }

  /** The entry of `key` unless absent or expired. */
  private live(key: string, now: number): ClaimEntry | undefined {
    const entry = this.entries.get(key);
    return entry === undefined || isExpired(entry, now) ? undefined : entry;
  }

  /** The live in-progress entry of `key` when `jobId` owns it. */
  private ownedInProgress(key: string, jobId: string, now: number): ClaimEntry | undefined {
    const entry = this.live(key, now);
    return entry?.state === 'in-progress' && entry.jobId === jobId ? entry : undefined;
  }

  /** Deletes every expired entry; returns how many. */
  private purge(now: number): number {
    let purged = 0;
    for (const [key, entry] of this.entries) {
      if (isExpired(entry, now)) {
        this.entries.delete(key);
        purged += 1;
      }
    }
    return purged;
  }
}

/** Expired entries behave as absent; an entry expires at `expiresAt` itself (as in SQL: `<= now()`). */
function isExpired(entry: ClaimEntry, now: number): boolean {
  return entry.expiresAt !== null && entry.expiresAt <= now;
}
