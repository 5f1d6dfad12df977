-- Purpose: the due pending jobs of some queues by job type, for the health view that flags work
--   no live worker can run. Reads at most $2 due rows (through the fetch indexes' queue prefix),
--   so a large backlog costs a bounded read; the counts are then lower bounds.
-- Parameters: $1 queues (text[]), $2 most rows read (int).
-- Locking: none.
-- Returns: queue, type, due, oldest_due_at; by queue, then type.
SELECT queue, type, count(*) AS due, min(run_at) AS oldest_due_at
FROM (
  SELECT queue, type, run_at FROM :SCHEMA.jobs_hot
  WHERE status = :PENDING AND queue = ANY($1::text[]) AND run_at <= now()
  LIMIT $2::int
) d
GROUP BY queue, type
ORDER BY queue, type
