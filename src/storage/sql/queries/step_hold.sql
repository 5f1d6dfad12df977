-- Purpose: lock a job held by a run (fetched or processing under its lease) before its sleep or
--   wait; a send (step_send_hold.sql) takes the same lock, so the two never miss each other.
-- Parameters:
--   $1 id: text — the job
--   $2 workerId: text — the worker holding its lease
--   $3 leaseToken: text — its lease token
-- Locking: the hot row (FOR UPDATE) until the transaction ends.
-- Returns: the row, or none when the lease is no longer held.
-- Row: status smallint, queue text
SELECT status, queue
FROM :SCHEMA.jobs_hot
WHERE id = $1 AND worker_id = $2 AND lease_token = $3 AND status IN (:FETCHED, :PROCESSING)
FOR UPDATE
