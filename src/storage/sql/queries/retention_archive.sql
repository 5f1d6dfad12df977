-- Purpose: retention, one bounded batch of expired archive rows: the oldest first, by the age of
--   finished_at (an index range), only of the rule's queue or not of its excepted queues. A row
--   an awaiting job depends on stays (the job reads the success there); the dependencies of a
--   deleted job go with it (docs/workflows.md).
-- Parameters:
--   $1 ageMs: bigint — the age in ms
--   $2 limit: int — most rows
--   $3 queue: text or NULL — the rule's queue; NULL: any
--   $4 exceptQueues: text[] or NULL — the rule's excepted queues; NULL: none
--   $5 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: FOR UPDATE SKIP LOCKED on the rows it deletes (never waits); its own short transaction.
-- Returns: n, the rows deleted.
-- Row: n bigint
WITH picked AS (
  SELECT id FROM :SCHEMA.jobs_archive
  WHERE finished_at < :NOW - $1::bigint * interval '1 millisecond'
    AND ($3::text IS NULL OR queue = $3::text)
    AND ($4::text[] IS NULL OR queue <> ALL($4::text[]))
    AND NOT EXISTS (SELECT 1
                    FROM :SCHEMA.job_dependencies e
                    JOIN :SCHEMA.jobs_hot h ON h.id = e.job_id AND h.status = :AWAITING
                    WHERE e.depends_on = jobs_archive.id)
  ORDER BY finished_at
  LIMIT $2::int
  FOR UPDATE SKIP LOCKED
), deleted AS (
  DELETE FROM :SCHEMA.jobs_archive a USING picked p WHERE a.id = p.id RETURNING a.id
)
:INCLUDE deleted_leftovers
SELECT count(*) AS n FROM deleted
