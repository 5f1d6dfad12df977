-- Purpose: the recorded steps of a job (durable steps, docs/workflows.md), in record order.
-- Parameters:
--   $1 id: text — the job
-- Locking: none (reads).
-- Returns: one row per step.
-- Row: name text, kind smallint, done boolean, result text or NULL, topic text or NULL,
--   wake_at timestamptz or NULL, recorded_at timestamptz
SELECT name, kind, done, result, topic, wake_at, recorded_at
FROM :SCHEMA.job_steps
WHERE job_id = $1
ORDER BY seq
