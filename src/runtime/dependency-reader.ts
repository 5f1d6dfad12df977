import type { JobDependency } from '../job/dependencies.js';
import type { Store } from '../storage/store.js';
import type { DependencyState } from '../storage/workflow-store.js';

/** Reads the dependencies of job `id` for its handler (`ctx.dependencies()`). */
export type DependencyReader = (id: string) => Promise<JobDependency[]>;

/** A {@link DependencyReader} over `store`: each dependency with its result parsed from JSON. */
export function dependencyReader(store: Pick<Store, 'workflows'>): DependencyReader {
  return async (id) => (await store.workflows.dependencies(id)).map(jobDependencyOf);
}

/** A stored dependency as a handler reads it. */
function jobDependencyOf(state: DependencyState): JobDependency {
  return {
    id: state.id,
    onDeath: state.onDeath,
    state: state.state,
    result: state.result === null ? undefined : (JSON.parse(state.result) as unknown),
    reason: state.reason,
    error: state.error,
  };
}
