-- Purpose: delete expired idempotency claims (they already behave as absent).
-- Parameters: none.
-- Locking: row locks on the deleted rows.
-- Returns: one row with the number deleted.
WITH deleted AS (
  DELETE FROM :SCHEMA.idempotency_claims
  WHERE expires_at IS NOT NULL AND expires_at <= now()
  RETURNING 1
)
SELECT count(*) AS deleted FROM deleted
