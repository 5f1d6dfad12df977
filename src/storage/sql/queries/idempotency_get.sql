-- Purpose: the live (not expired) claim row of a key, after idempotency_begin.sql found one.
-- Parameters:
--   $1 key: text — the idempotency key
--   $2 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: none.
-- Returns: state, job_id and updated_at of the live row, or nothing when it was released or
--   expired in the meantime.
-- Row: state smallint, job_id text, updated_at timestamptz
SELECT state, job_id, updated_at
FROM :SCHEMA.idempotency_claims
WHERE key = $1::text
  AND (expires_at IS NULL OR expires_at > :NOW)
