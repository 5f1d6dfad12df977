-- Purpose: delete DLQ rows for good, taking them out of their error groups; lifetime counters
--   stay.
-- Parameters: $1 ids (text[]).
-- Locking: row locks on the deleted rows; dlq_error_groups rows updated in key order.
-- Returns: the id of each deleted row.
WITH deleted AS (
  DELETE FROM :SCHEMA.jobs_dlq WHERE id = ANY($1::text[])
  RETURNING id, fingerprint, queue, type
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
SELECT id FROM deleted
