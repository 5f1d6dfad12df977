-- Purpose: record that a worker process is alive (insert or refresh its row, last_seen_at = now),
--   and delete the rows of workers not seen for a day.
-- Parameters:
--   $1 id: text — the worker's id
--   $2 host: text — its host
--   $3 pid: int — its process id
--   $4 startedAt: timestamptz — when it started
--   $5 info: text — the rest of its presence (jsonb text)
--   $6 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: the worker's own row; the pruned rows.
WITH pruned AS (
  DELETE FROM :SCHEMA.workers WHERE last_seen_at < :NOW - interval '1 day'
)
INSERT INTO :SCHEMA.workers (id, host, pid, started_at, last_seen_at, info)
VALUES ($1::text, $2::text, $3::int, $4::timestamptz, :NOW, $5::jsonb)
ON CONFLICT (id) DO UPDATE SET last_seen_at = :NOW, info = EXCLUDED.info
