-- Purpose: delete expired idempotency claims (they already behave as absent), at most 1,000 per
--   call (oldest first), so a pass never holds many row locks; the next pass takes the rest.
-- Parameters:
--   $1 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row locks on the deleted rows; rows locked elsewhere are skipped.
-- Returns: one row with the number deleted.
-- Row: deleted bigint
WITH expired AS (
  SELECT key FROM :SCHEMA.idempotency_claims
  WHERE expires_at IS NOT NULL AND expires_at <= :NOW
  ORDER BY expires_at
  LIMIT 1000
  FOR UPDATE SKIP LOCKED
),
deleted AS (
  DELETE FROM :SCHEMA.idempotency_claims c USING expired e WHERE c.key = e.key
  RETURNING 1
)
SELECT count(*) AS deleted FROM deleted
