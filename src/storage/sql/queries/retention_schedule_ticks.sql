-- Purpose: retention, one bounded batch of expired schedule ticks, the oldest fired first.
-- Parameters:
--   $1 ageMs: bigint — the age in ms
--   $2 limit: int — most rows
--   $3 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: FOR UPDATE SKIP LOCKED on the rows it deletes (never waits); its own short transaction.
-- Returns: n, the rows deleted.
-- Row: n bigint
WITH picked AS (
  SELECT schedule, tick_at FROM :SCHEMA.schedule_ticks
  WHERE fired_at < :NOW - $1::bigint * interval '1 millisecond'
  ORDER BY fired_at
  LIMIT $2::int
  FOR UPDATE SKIP LOCKED
), deleted AS (
  DELETE FROM :SCHEMA.schedule_ticks t USING picked p
  WHERE t.schedule = p.schedule AND t.tick_at = p.tick_at RETURNING 1
)
SELECT count(*) AS n FROM deleted
