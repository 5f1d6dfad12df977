-- Purpose: retention, one bounded batch of expired audit entries (operator actions), the oldest
--   first.
-- Parameters:
--   $1 ageMs: bigint — the age in ms
--   $2 limit: int — most rows
--   $3 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: FOR UPDATE SKIP LOCKED on the rows it deletes (never waits); its own short transaction.
-- Returns: n, the rows deleted.
-- Row: n bigint
WITH picked AS (
  SELECT id FROM :SCHEMA.operator_actions
  WHERE at < :NOW - $1::bigint * interval '1 millisecond'
  ORDER BY at
  LIMIT $2::int
  FOR UPDATE SKIP LOCKED
), deleted AS (
  DELETE FROM :SCHEMA.operator_actions o USING picked p WHERE o.id = p.id RETURNING 1
)
SELECT count(*) AS n FROM deleted
