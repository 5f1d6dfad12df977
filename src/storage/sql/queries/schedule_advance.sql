-- Purpose: after firing, move a schedule's cursor forward (never back) and remember its latest
--   job for `overlap: 'skip'`.
-- Parameters:
--   $1 name: text — the schedule's name
--   $2 cursor: timestamptz or NULL — the new cursor; NULL keeps it
--   $3 lastJobId: text or NULL — the latest job's id; NULL keeps it
-- Locking: the schedule row (already locked by schedule_lock).
-- Returns: nothing.
UPDATE :SCHEMA.schedules
SET cursor_at = greatest(cursor_at, coalesce($2::timestamptz, cursor_at)),
  last_job_id = coalesce($3::text, last_job_id)
WHERE name = $1::text
