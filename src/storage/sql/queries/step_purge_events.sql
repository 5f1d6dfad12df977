-- Purpose: retention of events (docs/workflows.md, "Seeing and testing steps"), one bounded
--   batch: deletes the events whose job is in none of the hot table, the archive and the DLQ (a
--   job that kept no succeeded row, or one purged by a path that did not delete them). An event
--   is only sent to a hot job, and a job leaves one table for another in one statement, so the
--   statement's snapshot sees every living job in one of the three.
-- Parameters:
--   $1 limit: int — most events
-- Locking: FOR UPDATE SKIP LOCKED on the event rows (a wait taking one is skipped until the next
--   pass); its own short transaction.
-- Returns: n, the events deleted.
-- Row: n bigint
WITH orphans AS (
  SELECT v.seq
  FROM :SCHEMA.job_events v
  WHERE NOT EXISTS (SELECT 1 FROM :SCHEMA.jobs_hot h WHERE h.id = v.job_id)
    AND NOT EXISTS (SELECT 1 FROM :SCHEMA.jobs_archive a WHERE a.id = v.job_id)
    AND NOT EXISTS (SELECT 1 FROM :SCHEMA.jobs_dlq d WHERE d.id = v.job_id)
  ORDER BY v.seq
  LIMIT $1::int
  FOR UPDATE OF v SKIP LOCKED
),
deleted AS (
  DELETE FROM :SCHEMA.job_events v USING orphans o WHERE v.seq = o.seq RETURNING v.seq
)
SELECT count(*) AS n FROM deleted
