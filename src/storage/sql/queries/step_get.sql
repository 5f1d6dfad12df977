-- Purpose: one recorded step of a job, by name.
-- Parameters:
--   $1 id: text — the job
--   $2 name: text — the step
-- Locking: none (reads; the caller holds the job's row lock, which every writer of the job's
--   sleeps and waits takes first).
-- Returns: the step, or no row.
-- Row: as step_list
SELECT name, kind, done, result, topic, wake_at, recorded_at
FROM :SCHEMA.job_steps
WHERE job_id = $1 AND name = $2
