-- Purpose: every schedule, or the one named, with its latest tick (by tick time).
-- Parameters:
--   $1 name: text or NULL — the schedule's name; NULL for every schedule
-- Locking: none.
-- Returns: one row per schedule, by name; the tick columns are null before the first tick.
-- Row: name text, definition text, paused boolean, cursor_at timestamptz, anchor_at timestamptz,
--   created_at timestamptz, updated_at timestamptz, tick_at timestamptz or NULL,
--   fired_at timestamptz or NULL, manual boolean or NULL, outcome text or NULL, job_id text or NULL,
--   error text or NULL
SELECT s.name, s.definition::text AS definition, s.paused, s.cursor_at, s.anchor_at,
  s.created_at, s.updated_at,
  t.tick_at, t.fired_at, t.manual, t.outcome, t.job_id, t.error
FROM :SCHEMA.schedules s
LEFT JOIN LATERAL (
  SELECT tick_at, fired_at, manual, outcome, job_id, error
  FROM :SCHEMA.schedule_ticks WHERE schedule = s.name
  ORDER BY tick_at DESC LIMIT 1
) t ON true
WHERE $1::text IS NULL OR s.name = $1::text
ORDER BY s.name
