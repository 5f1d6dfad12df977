/**
 * Watches a store for state changes the state machine does not list. Every call that may move
 * jobs is wrapped: the states of all jobs are read before and after it, and each change is
 * checked against `TRANSITIONS` for the call's actor (enqueue: producer; claim, start, settle:
 * worker; rescue, promote, resolve, a batch purge: recovery; cancel, resurrect, purge, edit: operator).
 *
 * A call that overlaps another one (the concurrency tests) is not judged: the two snapshots would
 * mix both calls' changes. Every sequential call of the suite is.
 */
import { canTransition, type Actor, type JobState } from '../../src/job/state.js';
import type { JobStore } from '../../src/storage/job-store.js';
import type { OperatorStore } from '../../src/storage/operator-store.js';
import type { Store } from '../../src/storage/store.js';
import type { StepStore } from '../../src/storage/step-store.js';
import type { WorkflowStore } from '../../src/storage/workflow-store.js';
import type { BatchStore } from '../../src/storage/batch-store.js';

/** The actor behind each method of a store capability that may move jobs. */
const ACTORS: {
  jobs: Partial<Record<keyof JobStore, Actor>>;
  operator: Partial<Record<keyof OperatorStore, Actor>>;
  workflows: Partial<Record<keyof WorkflowStore, Actor>>;
  steps: Partial<Record<keyof StepStore, Actor>>;
  batches: Partial<Record<keyof BatchStore, Actor>>;
} = {
  jobs: {
    enqueue: 'producer',
    enqueueWithin: 'producer',
    claim: 'worker',
    start: 'worker',
    settle: 'worker',
    settleAndClaim: 'worker',
    heartbeat: 'worker',
    rescue: 'recovery',
    promote: 'recovery',
    cancel: 'operator',
  },
  operator: {
    resurrect: 'operator',
    purgeDead: 'operator',
    editPending: 'operator',
  },
  workflows: { resolve: 'recovery' },
  steps: { sleep: 'worker', wait: 'worker', send: 'producer' },
  batches: { enqueue: 'producer', enqueueWithin: 'producer', purge: 'recovery' },
};

/** Most rows of each table a snapshot reads; the suite's tests stay far below it. */
const SNAPSHOT_LIMIT = 100_000;

/** The state of every job by id (a hot row wins over an archived or dead one with the same id). */
async function snapshot(store: Store): Promise<Map<string, JobState>> {
  const [hot, archived, dead] = await Promise.all([
    store.operator.listHot({ limit: SNAPSHOT_LIMIT }),
    store.operator.listArchive({ limit: SNAPSHOT_LIMIT }),
    store.operator.listDead({ limit: SNAPSHOT_LIMIT }),
  ]);
  const states = new Map<string, JobState>();
  for (const job of archived) states.set(job.id, 'succeeded');
  for (const job of dead) states.set(job.id, 'dead');
  for (const job of hot) states.set(job.id, job.state);
  return states;
}

/**
 * `store`, with every job-moving call checked; a change the state machine does not list is
 * added to `violations` (as `method: from → to (actor) for id`).
 */
export function checkTransitions(store: Store, violations: string[]): Store {
  let calls = 0;
  let inFlight = 0;
  /** `capability`'s methods that move jobs, each checked. */
  const watch = <C extends object>(capability: C, actors: Partial<Record<keyof C, Actor>>): C =>
    new Proxy(capability, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        const actor = actors[property as keyof C];
        if (actor === undefined || typeof value !== 'function') return value;
        const method = value as (...args: unknown[]) => Promise<unknown>;
        return async (...args: unknown[]): Promise<unknown> => {
          const mine = ++calls;
          inFlight += 1;
          let before: Map<string, JobState> | undefined;
          let result: unknown;
          try {
            if (inFlight === 1) before = await snapshot(store);
            result = await method.apply(target, args);
          } finally {
            inFlight -= 1;
          }
          if (before === undefined || calls !== mine || inFlight > 0) return result;
          const after = await snapshot(store);
          if (calls !== mine) return result; // another call started while we looked
          for (const id of new Set([...before.keys(), ...after.keys()])) {
            let from = before.get(id) ?? null;
            const to = after.get(id) ?? null;
            if (from === to) continue;
            // A new job may reuse the id of an archived or dead one: that row is another job.
            if (actor === 'producer' && to === 'pending') from = null;
            if (!canTransition(from, to, actor)) {
              violations.push(
                `${String(property)}: ${String(from)} → ${String(to)} (${actor}) for ${id}`,
              );
            }
          }
          return result;
        };
      },
    });
  const jobs = watch(store.jobs, ACTORS.jobs);
  const operator = watch(store.operator, ACTORS.operator);
  const workflows = watch(store.workflows, ACTORS.workflows);
  const steps = watch(store.steps, ACTORS.steps);
  const batches = watch(store.batches, ACTORS.batches);
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'jobs') return jobs;
      if (property === 'operator') return operator;
      if (property === 'workflows') return workflows;
      if (property === 'steps') return steps;
      if (property === 'batches') return batches;
      return Reflect.get(target, property, receiver) as unknown;
    },
  });
}
