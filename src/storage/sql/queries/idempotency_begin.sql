-- Purpose: claim an idempotency key for a job unless a live row holds it. Inserts a new row, or
--   takes over an expired one; a live row (in progress, or completed and not expired) is left
--   alone. When nothing is returned, read the live row with idempotency_get.sql.
-- Parameters:
--   $1 key: text — the idempotency key
--   $2 jobId: text — the job claiming it
--   $3 ttlMs: float8 — how long the in-progress claim lives, in ms
--   $4 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: the primary key serialises concurrent claims of one key: a second inserter waits for
--   the first and then sees its row, so exactly one of them gets a row back.
-- Returns: the claimed row (job_id) when this call claimed the key, else nothing.
INSERT INTO :SCHEMA.idempotency_claims (key, state, job_id, expires_at, updated_at)
VALUES ($1::text, 0, $2::text, :NOW + $3::float8 * interval '1 millisecond', :NOW)
ON CONFLICT (key) DO UPDATE SET
  state = 0,
  job_id = EXCLUDED.job_id,
  expires_at = EXCLUDED.expires_at,
  updated_at = EXCLUDED.updated_at
WHERE idempotency_claims.expires_at IS NOT NULL
  AND idempotency_claims.expires_at <= :NOW
RETURNING job_id
