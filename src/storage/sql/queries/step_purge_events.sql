-- Purpose: retention of events (docs/workflows.md, "Seeing and testing steps"), one bounded
--   window of a scan that goes on across passes: reads the next `limit` events after `after` in
--   send order and deletes those whose job is in none of the hot table, the archive and the DLQ
--   (a job that kept no succeeded row, or one purged by a path that did not delete them). An
--   event is only sent to a hot job, and a job leaves one table for another in one statement, so
--   the statement's snapshot sees every living job in one of the three. A window reads at most
--   `limit` events whatever it deletes: the events of living jobs are stepped over once per
--   scan, not once per pass (a scan from the start each time read every living event until it
--   had found `limit` orphans).
-- Parameters:
--   $1 after: bigint or NULL — read events sent after this one (its seq); NULL from the first
--     (seqs start at 1)
--   $2 limit: int — most events read
-- Locking: FOR UPDATE SKIP LOCKED on the orphaned event rows (a wait taking one is skipped until
--   the next scan); its own short transaction.
-- Returns: n, the events deleted; last, the seq of the last event read (NULL when none was);
--   scanned, the events read (fewer than `limit`: the scan reached the end).
-- Row: n bigint, last bigint or NULL, scanned bigint
WITH scanned AS (
  SELECT v.seq, v.job_id
  FROM :SCHEMA.job_events v
  -- One range of the primary key, also in the cached generic plan (`$1 IS NULL OR seq > $1`
  -- would read the index from its first entry there, every window).
  WHERE v.seq > coalesce($1::bigint, 0)
  ORDER BY v.seq
  LIMIT $2::int
),
orphans AS (
  SELECT v.seq
  FROM :SCHEMA.job_events v
  -- By primary key from an array, not a join with the window: a join may read job_events whole.
  WHERE v.seq = ANY(ARRAY(
    SELECT s.seq FROM scanned s
    -- Scalar subqueries, one probe per event read: as NOT EXISTS the planner may join the window
    -- to a whole job table instead.
    WHERE (SELECT true FROM :SCHEMA.jobs_hot h WHERE h.id = s.job_id) IS NULL
      AND (SELECT true FROM :SCHEMA.jobs_archive a WHERE a.id = s.job_id) IS NULL
      AND (SELECT true FROM :SCHEMA.jobs_dlq d WHERE d.id = s.job_id) IS NULL
  ))
  FOR UPDATE OF v SKIP LOCKED
),
deleted AS (
  DELETE FROM :SCHEMA.job_events v
  WHERE v.seq = ANY(ARRAY(SELECT o.seq FROM orphans o))
  RETURNING v.seq
)
SELECT (SELECT count(*) FROM deleted) AS n,
       (SELECT max(seq) FROM scanned) AS last,
       (SELECT count(*) FROM scanned) AS scanned
