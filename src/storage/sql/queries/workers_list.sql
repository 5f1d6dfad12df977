-- Purpose: the worker processes seen within a time, most recently started first, with the store
--   clock to age them by.
-- Parameters:
--   $1 withinMs: bigint — seen within this many ms
-- Locking: none.
SELECT *, now() AS read_at
FROM :SCHEMA.workers
WHERE last_seen_at >= now() - $1::bigint * interval '1 millisecond'
ORDER BY started_at DESC, id
