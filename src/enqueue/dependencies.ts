/**
 * The checks of an enqueue's `dependsOn` (docs/workflows.md): each item's list, and the call's
 * jobs together, which must not wait for themselves.
 */
import { ChokaQError } from '../errors.js';
import { DEPENDENCY_POLICY_CODE, type DependencyPolicy } from '../job/dependencies.js';
import { validateJobId } from '../job/envelope.js';
import type { NewDependency, NewJob } from '../storage/model.js';
import { checkArray, checkOptions, invalid, isPlainObject } from '../util/check.js';

/** Most dependencies one job may have. */
export const MAX_DEPENDENCIES = 1000;

/**
 * One dependency of an enqueue: the id of the job to wait for, or that id with what its death
 * does to the waiting job (`onDeath`, default `'fail'`; see {@link DependencyPolicy}).
 */
export type Dependency = string | { id: string; onDeath?: DependencyPolicy };

/** Names of a {@link Dependency} object's fields. */
const DEPENDENCY_KEYS = ['id', 'onDeath'] as const;

/**
 * The checked dependencies of the job `id` from an item's `dependsOn` (`field` names it):
 * valid ids, each once, not the job itself, known policies.
 * @throws ChokaQError naming the entry (`options.dependsOn[2].onDeath`); nothing is written.
 */
export function checkDependsOn(value: unknown, field: string, id: string): NewDependency[] {
  const list = checkArray(value, field, MAX_DEPENDENCIES);
  const seen = new Set<string>();
  return list.map((entry, index) => {
    const at = `${field}[${index}]`;
    const dependency = dependencyOf(entry, at);
    if (dependency.id === id) {
      throw invalid('CHOKAQ_INVALID_ARGUMENT', at, 'another job than the one enqueued', entry);
    }
    if (seen.has(dependency.id)) {
      throw invalid('CHOKAQ_INVALID_ARGUMENT', at, 'a job not named before in the list', entry);
    }
    seen.add(dependency.id);
    return dependency;
  });
}

/** One entry of `dependsOn`, checked. */
function dependencyOf(entry: unknown, field: string): NewDependency {
  if (typeof entry === 'string') {
    validateJobId(entry, field);
    return { id: entry, onDeath: 'fail' };
  }
  if (!isPlainObject(entry)) {
    throw invalid('CHOKAQ_INVALID_ARGUMENT', field, 'a job id or { id, onDeath }', entry);
  }
  const { id, onDeath = 'fail' } = checkOptions(
    entry as { id: string; onDeath?: DependencyPolicy },
    field,
    [...DEPENDENCY_KEYS],
    'CHOKAQ_INVALID_ARGUMENT',
  );
  validateJobId(id, `${field}.id`);
  if (typeof onDeath !== 'string' || !Object.hasOwn(DEPENDENCY_POLICY_CODE, onDeath)) {
    throw invalid(
      'CHOKAQ_INVALID_ARGUMENT',
      `${field}.onDeath`,
      "'fail', 'skip' or 'continue'",
      onDeath,
    );
  }
  return { id, onDeath };
}

/**
 * Refuses an enqueue whose jobs wait for each other in a circle. Only dependencies among the
 * call's own jobs can close one: a stored job never waits for a job enqueued after it.
 * @throws ChokaQError `CHOKAQ_DEPENDENCY_CYCLE` naming the jobs of one cycle, in order.
 */
export function checkAcyclic(jobs: readonly NewJob[]): void {
  const byId = new Map(jobs.map((job) => [job.id, job]));
  const done = new Set<string>();
  for (const start of jobs) {
    if (done.has(start.id) || start.dependsOn === undefined) continue;
    // Depth-first, with an explicit stack: a chain of 100,000 jobs must not overflow the call stack.
    const path: string[] = [];
    const onPath = new Set<string>();
    const stack: { id: string; next: number }[] = [{ id: start.id, next: 0 }];
    path.push(start.id);
    onPath.add(start.id);
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as { id: string; next: number };
      const dependencies = byId.get(top.id)?.dependsOn ?? [];
      const dependency = dependencies[top.next];
      top.next += 1;
      if (dependency === undefined) {
        stack.pop();
        path.pop();
        onPath.delete(top.id);
        done.add(top.id);
        continue;
      }
      if (onPath.has(dependency.id)) {
        const cycle = [...path.slice(path.indexOf(dependency.id)), dependency.id];
        throw new ChokaQError(
          'CHOKAQ_DEPENDENCY_CYCLE',
          `the jobs wait for each other in a circle: ${cycle.join(' → ')}; nothing was enqueued`,
          { field: 'dependsOn' },
        );
      }
      if (done.has(dependency.id) || !byId.has(dependency.id)) continue;
      stack.push({ id: dependency.id, next: 0 });
      path.push(dependency.id);
      onPath.add(dependency.id);
    }
  }
}
