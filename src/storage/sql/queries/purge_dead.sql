-- Purpose: delete DLQ rows for good; lifetime counters stay.
-- Parameters: $1 ids (text[]).
-- Locking: row locks on the deleted rows.
-- Returns: one row with the number deleted.
WITH deleted AS (
  DELETE FROM :SCHEMA.jobs_dlq WHERE id = ANY($1::text[]) RETURNING 1
)
SELECT count(*) AS deleted FROM deleted
