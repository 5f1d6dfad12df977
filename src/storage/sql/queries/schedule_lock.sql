-- Purpose: lock a schedule before firing its ticks, so fires of one schedule run one at a time:
--   its cursor, whether its latest job is still hot (pending, fetched or processing), and now.
-- Parameters:
--   $1 name: text — the schedule's name
--   $2 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: FOR UPDATE on the schedule row, until the firing transaction ends.
-- Returns: one row when the schedule exists.
-- Row: cursor_at timestamptz, now timestamptz, busy boolean
SELECT s.cursor_at, :NOW AS now,
  EXISTS (SELECT 1 FROM :SCHEMA.jobs_hot h WHERE h.id = s.last_job_id) AS busy
FROM :SCHEMA.schedules s
WHERE s.name = $1::text
FOR UPDATE OF s
