-- Purpose: record a run step as done; the first record of a name wins, and this returns it. A
--   record committed by a concurrent run after this statement began is not returned (the caller
--   reads it with step_get.sql).
-- Parameters:
--   $1 id: text — the job
--   $2 name: text — the step
--   $3 result: text or NULL — JSON text of its result; NULL for undefined
--   $4 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: the new row; waits for a concurrent insert of the same name to end.
-- Returns: the step's record (this one, or an earlier one of the same name).
-- Row: as step_list
WITH inserted AS (
  INSERT INTO :SCHEMA.job_steps (job_id, name, kind, done, result, recorded_at)
  VALUES ($1, $2, 0, true, $3, :NOW)
  ON CONFLICT (job_id, name) DO NOTHING
  RETURNING name, kind, done, result, topic, wake_at, recorded_at
)
SELECT * FROM inserted
UNION ALL
SELECT name, kind, done, result, topic, wake_at, recorded_at
FROM :SCHEMA.job_steps
WHERE job_id = $1 AND name = $2 AND NOT EXISTS (SELECT 1 FROM inserted)
