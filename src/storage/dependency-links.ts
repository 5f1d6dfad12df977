/**
 * What every store does the same way with an enqueue's dependencies (`NewJob.dependsOn`) before
 * it links them: which jobs have any, and which links to store once the insert has resolved
 * idempotency keys.
 */
import type { EnqueueResult, NewJob } from './model.js';

/** Whether `job` waits for other jobs. */
export function hasDependencies(job: NewJob): boolean {
  return job.dependsOn !== undefined && job.dependsOn.length > 0;
}

/**
 * The jobs whose dependencies to store, after an insert whose results are `results` (in the order
 * of `jobs`): only the jobs it created, and a dependency on a job of the same call that was not
 * created (an active job held its idempotency key) points to the job that holds the key.
 */
export function linkedJobs(jobs: readonly NewJob[], results: readonly EnqueueResult[]): NewJob[] {
  const holders = new Map<string, string>();
  jobs.forEach((job, index) => {
    const result = results[index];
    if (result !== undefined && !result.created) holders.set(job.id, result.id);
  });
  const linked: NewJob[] = [];
  jobs.forEach((job, index) => {
    if (results[index]?.created !== true || !hasDependencies(job)) return;
    linked.push({
      ...job,
      dependsOn: (job.dependsOn ?? []).map((d) => ({ ...d, id: holders.get(d.id) ?? d.id })),
    });
  });
  return linked;
}
