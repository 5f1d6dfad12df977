-- Purpose: delete DLQ rows for good, taking them out of their error groups; lifetime counters
--   stay.
-- Parameters:
--   $1 ids: text[] — the jobs' ids
--   $2 versions: (bigint or NULL)[] — parallel to $1: a row is deleted only while its version
--     (edited_at, else failed_at, in microseconds since the epoch) equals the given one; NULL
--     elements skip the check
-- Locking: row locks on the deleted rows; dlq_error_groups rows updated in key order.
-- Returns: the id of each deleted row.
-- Row: id text
WITH input AS (
  -- Arrays behind `(SELECT …)`: read by index however many ids (fragments/archive_moved.sql).
  SELECT * FROM unnest((SELECT $1::text[]), (SELECT $2::bigint[])) AS t(id, version)
),
deleted AS (
  DELETE FROM :SCHEMA.jobs_dlq d
  USING input i
  WHERE d.id = i.id
    AND (i.version IS NULL OR (extract(epoch FROM coalesce(d.edited_at, d.failed_at)) * 1000000)::bigint = i.version)
  RETURNING d.id, d.fingerprint, d.queue, d.type
),
ungrouped AS (
  UPDATE :SCHEMA.dlq_error_groups g
  SET dead_count = greatest(g.dead_count - d.n, 0)
  FROM (
    SELECT fingerprint, queue, type, count(*) AS n FROM deleted
    GROUP BY fingerprint, queue, type ORDER BY fingerprint, queue, type
  ) d
  WHERE g.fingerprint = d.fingerprint AND g.queue = d.queue AND g.type = d.type
)
:INCLUDE deleted_leftovers
SELECT id FROM deleted
