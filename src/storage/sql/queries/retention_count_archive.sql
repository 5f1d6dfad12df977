-- Purpose: how many archived jobs retention_archive.sql would purge now (the preview of a rule).
-- Parameters:
--   $1 ageMs: bigint — the age in ms
--   $2 queue: text or NULL — the rule's queue; NULL: any
--   $3 exceptQueues: text[] or NULL — the rule's excepted queues; NULL: none
--   $4 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: none (a read).
-- Returns: n.
-- Row: n bigint
SELECT count(*) AS n FROM :SCHEMA.jobs_archive
WHERE finished_at < :NOW - $1::bigint * interval '1 millisecond'
  AND ($2::text IS NULL OR queue = $2::text)
  AND ($3::text[] IS NULL OR queue <> ALL($3::text[]))
  -- As retention_archive.sql: a row an awaiting job depends on stays.
  AND NOT EXISTS (SELECT 1
                  FROM :SCHEMA.job_dependencies e
                  JOIN :SCHEMA.jobs_hot h ON h.id = e.job_id AND h.status = :AWAITING
                  WHERE e.depends_on = jobs_archive.id)
