/**
 * Jobs that wait for other jobs, as pure rules every store applies the same way: what a
 * dependency's death does to the job waiting for it, and when a waiting (`awaiting`) job is
 * released, failed or left waiting. See docs/workflows.md.
 */
import { ChokaQError } from '../errors.js';
import type { FailureReason, JobState } from './state.js';

/**
 * What a dependency's death (the DLQ, or purged from it) does to the job waiting for it:
 * - `fail`: the waiting job moves to the DLQ too, reason `DependencyFailed`, naming the dependency;
 * - `skip`: the dependency counts as finished; the job runs once the others finish and reads it
 *   as dead;
 * - `continue`: the job becomes due at once, without waiting for its other dependencies (for
 *   clean-up or compensation), and reads each dependency as it is then.
 */
export type DependencyPolicy = 'fail' | 'skip' | 'continue';

/** The stored codes of {@link DependencyPolicy} (`job_dependencies.on_death`). */
export const DEPENDENCY_POLICY_CODE: Record<DependencyPolicy, number> = {
  fail: 0,
  skip: 1,
  continue: 2,
};

/** Reverse of {@link DEPENDENCY_POLICY_CODE}. */
export const DEPENDENCY_POLICY_BY_CODE: readonly DependencyPolicy[] = ['fail', 'skip', 'continue'];

/**
 * Where a dependency is, as the resolver sees it: still in the hot table, archived (it
 * succeeded: a job others depend on keeps its archive row even where its queue or type keeps
 * none, and retention keeps it while a job waits for it), dead in the DLQ, or purged from it.
 */
export type DependencyPlace = 'hot' | 'succeeded' | 'dead' | 'purged';

/** One dependency of a waiting job, with where it is now. */
export interface DependencyView {
  id: string;
  onDeath: DependencyPolicy;
  place: DependencyPlace;
}

/** What the resolver does with a waiting job. */
export type Resolution =
  | { kind: 'wait' }
  | { kind: 'release' }
  | { kind: 'fail'; dependency: string; place: 'dead' | 'purged' };

/**
 * Decides a waiting job's next step from its dependencies, in their enqueued order. A death under
 * `fail` wins over one under `continue` (the safer outcome); otherwise a death under `continue`
 * releases the job at once; the job is released when every dependency succeeded or died under
 * `skip`; else it waits.
 */
export function resolveDependencies(dependencies: readonly DependencyView[]): Resolution {
  let waiting = false;
  let continueNow = false;
  for (const dependency of dependencies) {
    if (dependency.place === 'hot') waiting = true;
    else if (dependency.place === 'dead' || dependency.place === 'purged') {
      if (dependency.onDeath === 'fail') {
        return { kind: 'fail', dependency: dependency.id, place: dependency.place };
      }
      if (dependency.onDeath === 'continue') continueNow = true;
    }
  }
  return continueNow || !waiting ? { kind: 'release' } : { kind: 'wait' };
}

/** The DLQ error text of a job failed by its dependency. */
export function dependencyFailedError(dependency: string, place: 'dead' | 'purged'): string {
  return place === 'dead'
    ? `its dependency ${dependency} died`
    : `its dependency ${dependency} was purged from the DLQ`;
}

/** A dependency of the running job, as its handler reads it (`ctx.dependencies()`). */
export interface JobDependency {
  /** The id of the job depended on. */
  id: string;
  /** What its death does to the job waiting for it. */
  onDeath: DependencyPolicy;
  /** Its state now; `purged`: it was dead and is gone from the DLQ. */
  state: JobState | 'purged';
  /** What its handler returned, once it succeeded; `undefined` before, or when it returned none. */
  result: unknown;
  /** Why it is dead (`null` unless `state` is `dead`). */
  reason: FailureReason | null;
  /** Its error text when dead; else `null`. */
  error: string | null;
}

/** The error of a dependency that is not a job (never enqueued, or purged). */
export function unknownDependency(id: string): ChokaQError {
  return new ChokaQError(
    'CHOKAQ_UNKNOWN_DEPENDENCY',
    `dependsOn names job ${JSON.stringify(id)}, which is not hot, archived or dead`,
    { field: 'dependsOn' },
  );
}
