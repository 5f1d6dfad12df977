-- Purpose: record that a worker process is alive (insert or refresh its row, last_seen_at = now),
--   and delete the rows of workers not seen for a day.
-- Parameters: $1 id (text), $2 host (text), $3 pid (int), $4 started at (timestamptz),
--   $5 info (jsonb text).
-- Locking: the worker's own row; the pruned rows.
WITH pruned AS (
  DELETE FROM :SCHEMA.workers WHERE last_seen_at < now() - interval '1 day'
)
INSERT INTO :SCHEMA.workers (id, host, pid, started_at, last_seen_at, info)
VALUES ($1::text, $2::text, $3::int, $4::timestamptz, now(), $5::jsonb)
ON CONFLICT (id) DO UPDATE SET last_seen_at = now(), info = EXCLUDED.info
