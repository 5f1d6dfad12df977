/**
 * The rate gate of one worker process: before claimed jobs of rate-limited types start, it draws
 * one token per job from their buckets (in the store, shared by every process); jobs it gets no
 * token for go back to pending, and their type is left out of this process's claims for the
 * bucket's wait (at most {@link MAX_LOCAL_PAUSE_MS}), so a throttled type is not claimed over and
 * over. A handler's `RateLimitedError` blocks the job's bucket for every process.
 */
import { logEvent } from '../observability/logging/log-events.js';
import type { Logger } from '../observability/logging/logger.js';
import type { AnyJobDefinition, JobRegistry } from '../job/registry.js';
import { bucketOf, type RateLimit } from '../job/rate-limit.js';
import type { ClaimedJob } from '../storage/model.js';
import type { RateLimits } from '../storage/rate-limits.js';
import type { Clock } from '../util/clock.js';

/**
 * Longest time a refused draw keeps a type out of this process's claims, in ms: a bucket blocked
 * for long is asked again this often (a key's bucket may be blocked while other keys' are not).
 */
export const MAX_LOCAL_PAUSE_MS = 1000;

/** What {@link RateGate.admit} decided. */
export interface Admission {
  /** Jobs that got a token (or need none), in claim order. */
  admitted: ClaimedJob[];
  /** Jobs to put back to pending at once: no token now. */
  refused: ClaimedJob[];
}

/** A job's bucket, with its type's rate limit. */
interface Draw {
  name: string;
  rate: RateLimit;
}

/** Settings of a {@link RateGate}. */
export interface RateGateOptions {
  rates: RateLimits;
  registry: JobRegistry;
  clock: Clock;
  logger: Logger;
  /** Told how many claimed jobs each refused draw put back, with the first (metrics). Default: none. */
  onThrottled?: (job: ClaimedJob, count: number) => void;
}

/** See the module comment. */
export class RateGate {
  /** Whether any registered job type has a rate limit: without one the gate does nothing. */
  readonly active: boolean;
  /** Per type: until when (clock ms) it stays out of this process's claims. */
  private readonly pausedUntil = new Map<string, number>();

  constructor(private readonly options: RateGateOptions) {
    this.active = options.registry.all().some((definition) => definition.rateLimit);
  }

  /** The job types to leave out of claims now, and in how many ms the first comes back. */
  paused(): { types: Set<string>; resumeInMs: number } {
    const now = this.options.clock.now();
    const types = new Set<string>();
    let resumeInMs = Number.POSITIVE_INFINITY;
    for (const [type, until] of this.pausedUntil) {
      if (until <= now) {
        this.pausedUntil.delete(type);
      } else {
        types.add(type);
        resumeInMs = Math.min(resumeInMs, until - now);
      }
    }
    return { types, resumeInMs };
  }

  /** Draws a token for every job of a rate-limited type in `jobs` (one draw per bucket). */
  async admit(jobs: readonly ClaimedJob[]): Promise<Admission> {
    const byBucket = new Map<string, { draw: Draw; jobs: ClaimedJob[] }>();
    const free = new Set<ClaimedJob>();
    for (const job of jobs) {
      const draw = this.drawOf(job);
      if (draw === null) {
        free.add(job);
        continue;
      }
      const group = byBucket.get(draw.name) ?? { draw, jobs: [] };
      group.jobs.push(job);
      byBucket.set(draw.name, group);
    }
    const granted = new Set<ClaimedJob>(free);
    await Promise.all(
      [...byBucket.values()].map(async ({ draw, jobs: group }) => {
        const grant = await this.options.rates.take({
          name: draw.name,
          limit: draw.rate.limit,
          perMs: draw.rate.perMs,
          count: group.length,
        });
        group.slice(0, grant.granted).forEach((job) => granted.add(job));
        const held = group.slice(grant.granted);
        if (held.length === 0) return;
        const until = this.options.clock.now() + Math.min(grant.waitMs, MAX_LOCAL_PAUSE_MS);
        for (const job of held) {
          this.pausedUntil.set(job.type, Math.max(this.pausedUntil.get(job.type) ?? 0, until));
        }
        const [first] = held;
        if (first !== undefined) this.options.onThrottled?.(first, held.length);
      }),
    );
    return {
      admitted: jobs.filter((job) => granted.has(job)),
      refused: jobs.filter((job) => !granted.has(job)),
    };
  }

  /**
   * Blocks `job`'s bucket for `forMs` in every process (its handler threw `RateLimitedError`);
   * nothing when its type has no rate limit. Never throws: a failed write is logged.
   */
  async block(job: ClaimedJob, forMs: number): Promise<void> {
    const draw = this.drawOf(job);
    if (draw === null) return;
    try {
      await this.options.rates.block(draw.name, draw.rate.limit, draw.rate.perMs, forMs);
    } catch (error) {
      this.options.logger.warn('could not block a rate bucket', {
        ...logEvent('RateBucketBlockFailed'),
        id: job.id,
        type: job.type,
        bucket: draw.name,
        error: String(error),
      });
    }
  }

  /**
   * The bucket `job` draws from, or `null` when its type has no rate limit or its payload cannot
   * be read (the run then fails on its own).
   */
  private drawOf(job: ClaimedJob): Draw | null {
    const definition: AnyJobDefinition | undefined = this.options.registry.find(job.type);
    const rate = definition?.rateLimit;
    if (rate === undefined) return null;
    try {
      const payload: unknown = typeof rate.key === 'function' ? JSON.parse(job.payload) : null;
      return { name: bucketOf(rate, definition?.type ?? job.type, payload, 'payload'), rate };
    } catch {
      return null;
    }
  }
}
