-- Purpose: mark the owner's live in-progress claim completed for the result TTL.
-- Parameters:
--   $1 key: text — the idempotency key
--   $2 jobId: text — the job holding it
--   $3 ttlMs: float8 or NULL — how long the result is kept, in ms; NULL for forever
--   $4 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row lock on the claim row.
-- Returns: the key when the claim was completed; nothing when the job does not own a live
--   in-progress claim of the key.
UPDATE :SCHEMA.idempotency_claims
SET state = 1,
    expires_at = :NOW + $3::float8 * interval '1 millisecond',
    updated_at = :NOW
WHERE key = $1::text
  AND job_id = $2::text
  AND state = 0
  AND (expires_at IS NULL OR expires_at > :NOW)
RETURNING key
