-- Purpose: how many dead jobs retention_dlq.sql would purge now (the preview of a rule).
-- Parameters: $1 age in ms (bigint), $2 the rule's queue (text; NULL: any), $3 the rule's
--   excepted queues (text[]; NULL: none).
-- Locking: none (a read).
-- Returns: n.
SELECT count(*) AS n FROM :SCHEMA.jobs_dlq
WHERE failed_at < now() - $1::bigint * interval '1 millisecond'
  AND ($2::text IS NULL OR queue = $2::text)
  AND ($3::text[] IS NULL OR queue <> ALL($3::text[]))
