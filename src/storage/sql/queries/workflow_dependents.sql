-- Purpose: the jobs that wait (or waited) for a job: the other end of its edges, for the
--   operator's job detail.
-- Parameters:
--   $1 id: text — the job depended on
--   $2 limit: int — most ids
-- Locking: none (reads).
-- Returns: the waiting jobs' ids, in id order.
-- Row: job_id text
SELECT job_id
FROM :SCHEMA.job_dependencies
WHERE depends_on = $1::text
ORDER BY job_id
LIMIT $2::int
