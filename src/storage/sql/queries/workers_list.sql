-- Purpose: the worker processes seen within a time, most recently started first, with the store
--   clock to age them by.
-- Parameters:
--   $1 withinMs: bigint — seen within this many ms
-- Locking: none.
-- Row: id text, host text, pid int, started_at timestamptz, last_seen_at timestamptz, info jsonb,
--   read_at timestamptz
SELECT *, now() AS read_at
FROM :SCHEMA.workers
WHERE last_seen_at >= now() - $1::bigint * interval '1 millisecond'
ORDER BY started_at DESC, id
