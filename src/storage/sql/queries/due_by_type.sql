-- Purpose: the due pending jobs of some queues by job type, for the health view that flags work
--   no live worker can run. Reads at most $2 due rows (through the fetch indexes' queue prefix),
--   so a large backlog costs a bounded read; the counts are then lower bounds.
-- Parameters:
--   $1 queues: text[] — the queues to read
--   $2 limit: int — most rows read
--   $3 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: none.
-- Returns: queue, type, due, oldest_due_at; by queue, then type.
-- Row: queue text, type text, due bigint, oldest_due_at timestamptz
SELECT queue, type, count(*) AS due, min(run_at) AS oldest_due_at
FROM (
  SELECT queue, type, run_at FROM :SCHEMA.jobs_hot
  WHERE status = :PENDING AND queue = ANY($1::text[]) AND run_at <= :NOW
  LIMIT $2::int
) d
GROUP BY queue, type
ORDER BY queue, type
