-- Purpose: concurrency keys in use, for operators: per queue and key, the jobs fetched or
--   processing (running) and waiting (pending or scheduled), and the largest limit its jobs carry; busiest first.
-- Parameters:
--   $1 queue: text or NULL — the queue; NULL for every queue
--   $2 limit: int — most rows
-- Locking: none. Reads every hot row with a key (the partial indexes of migration 0014 hold
--   them): an operator read, not for every claim.
-- Returns: queue, concurrency_key, concurrency_limit, running, pending.
-- Row: queue text, concurrency_key text, concurrency_limit int or NULL, running int, pending int
SELECT queue, concurrency_key, max(concurrency_limit) AS concurrency_limit,
       count(*) FILTER (WHERE status IN (:FETCHED, :PROCESSING))::int AS running,
       count(*) FILTER (WHERE status IN (:PENDING, :SCHEDULED))::int AS pending
FROM :SCHEMA.jobs_hot
WHERE concurrency_key IS NOT NULL
  AND ($1::text IS NULL OR queue = $1::text)
GROUP BY queue, concurrency_key
ORDER BY running DESC, pending DESC, queue, concurrency_key
LIMIT $2::int
