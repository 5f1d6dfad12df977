-- Purpose: delete a schedule; its ticks go with it (ON DELETE CASCADE).
-- Parameters:
--   $1 name: text — the schedule's name
-- Locking: the schedule row and its ticks.
-- Returns: one row when it existed.
DELETE FROM :SCHEMA.schedules WHERE name = $1::text RETURNING name
