-- Purpose: pause or resume a schedule; resuming moves the cursor to now, so ticks that fell in
--   the pause never fire.
-- Parameters:
--   $1 name: text — the schedule's name
--   $2 paused: boolean — whether it is paused
--   $3 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: the schedule row.
-- Returns: one row when the schedule exists.
UPDATE :SCHEMA.schedules
SET paused = $2::boolean,
  cursor_at = CASE WHEN $2::boolean THEN cursor_at ELSE greatest(cursor_at, :NOW) END,
  updated_at = :NOW
WHERE name = $1::text
RETURNING name
