-- Purpose: how many schedule ticks retention_schedule_ticks.sql would purge now (the preview of a rule).
-- Parameters:
--   $1 ageMs: bigint — the age in ms
-- Locking: none (a read).
-- Returns: n.
-- Row: n bigint
SELECT count(*) AS n FROM :SCHEMA.schedule_ticks
WHERE fired_at < now() - $1::bigint * interval '1 millisecond'
