-- Purpose: take (delete and return) the oldest event sent to a job on a topic.
-- Parameters:
--   $1 id: text — the job
--   $2 topic: text — the topic
-- Locking: the event's row (the caller holds the job's row lock).
-- Returns: the event's data, or no row.
-- Row: data text
DELETE FROM :SCHEMA.job_events e
WHERE e.seq = (
  SELECT seq FROM :SCHEMA.job_events
  WHERE job_id = $1 AND topic = $2
  ORDER BY seq
  LIMIT 1
)
RETURNING e.data
