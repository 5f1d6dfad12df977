-- Purpose: drop the owner's live in-progress claim after its run failed, so a retry or another
--   job can claim the key again.
-- Parameters:
--   $1 key: text — the idempotency key
--   $2 jobId: text — the job holding it
--   $3 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row lock on the deleted row.
-- Returns: the key when the claim was dropped; nothing when the job does not own a live
--   in-progress claim of the key.
DELETE FROM :SCHEMA.idempotency_claims
WHERE key = $1::text
  AND job_id = $2::text
  AND state = 0
  AND (expires_at IS NULL OR expires_at > :NOW)
RETURNING key
