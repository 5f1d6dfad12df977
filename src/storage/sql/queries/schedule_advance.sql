-- Purpose: after firing, move a schedule's cursor forward (never back) and remember its latest
--   job for `overlap: 'skip'`.
-- Parameters: $1 name (text), $2 new cursor (timestamptz or null: keep), $3 latest job id (text
--   or null: keep).
-- Locking: the schedule row (already locked by schedule_lock).
-- Returns: nothing.
UPDATE :SCHEMA.schedules
SET cursor_at = greatest(cursor_at, coalesce($2::timestamptz, cursor_at)),
  last_job_id = coalesce($3::text, last_job_id)
WHERE name = $1::text
