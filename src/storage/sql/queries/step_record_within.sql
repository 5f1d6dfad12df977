-- Purpose: record a run step as done inside the caller's transaction (a transactional step). A
--   plain insert: a name recorded already fails with a unique violation, which aborts the
--   caller's transaction, so its writes are never kept twice.
-- Parameters:
--   $1 id: text — the job
--   $2 name: text — the step
--   $3 result: text or NULL — JSON text of its result; NULL for undefined
--   $4 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: the new row; waits for a concurrent insert of the same name to end.
-- Returns: nothing.
INSERT INTO :SCHEMA.job_steps (job_id, name, kind, done, result, recorded_at)
VALUES ($1, $2, 0, true, $3, :NOW)
