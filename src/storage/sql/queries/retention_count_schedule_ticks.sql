-- Purpose: how many schedule ticks retention_schedule_ticks.sql would purge now (the preview of a rule).
-- Parameters:
--   $1 ageMs: bigint — the age in ms
--   $2 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: none (a read).
-- Returns: n.
-- Row: n bigint
SELECT count(*) AS n FROM :SCHEMA.schedule_ticks
WHERE fired_at < :NOW - $1::bigint * interval '1 millisecond'
