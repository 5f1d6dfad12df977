-- Purpose: the dependencies of jobs, in their enqueued order, each with where it is now: its hot
--   status, or archived with its result, or dead with its reason and error, or none of these
--   (purged). The resolver decides from it; a handler and the operator read it.
-- Parameters:
--   $1 jobs: text[] — the waiting jobs
-- Locking: none (reads).
-- Returns: one row per dependency of each job, by job, in enqueued order.
-- Row: job_id text, depends_on text, on_death smallint, hot_status smallint or NULL,
--   archived boolean, result text or NULL, dead boolean, failure_reason smallint or NULL,
--   error_details text or NULL
SELECT d.job_id, d.depends_on, d.on_death, h.status AS hot_status,
       a.id IS NOT NULL AS archived, a.result,
       q.id IS NOT NULL AS dead, q.failure_reason, q.error_details
FROM :SCHEMA.job_dependencies d
LEFT JOIN :SCHEMA.jobs_hot h ON h.id = d.depends_on
LEFT JOIN :SCHEMA.jobs_archive a ON a.id = d.depends_on AND h.id IS NULL
LEFT JOIN :SCHEMA.jobs_dlq q ON q.id = d.depends_on AND h.id IS NULL AND a.id IS NULL
WHERE d.job_id = ANY($1::text[])
ORDER BY d.job_id, d.ord
