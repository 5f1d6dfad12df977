-- Purpose: the worker processes seen within a time, most recently started first, with the store
--   clock to age them by.
-- Parameters:
--   $1 withinMs: bigint — seen within this many ms
--   $2 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: none.
-- Row: id text, host text, pid int, started_at timestamptz, last_seen_at timestamptz, info jsonb,
--   read_at timestamptz
SELECT *, :NOW AS read_at
FROM :SCHEMA.workers
WHERE last_seen_at >= :NOW - $1::bigint * interval '1 millisecond'
ORDER BY started_at DESC, id
