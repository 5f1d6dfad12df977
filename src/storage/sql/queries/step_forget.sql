-- Purpose: after an archive settle, delete the steps and events of the settled jobs that left no
--   row (their queue or type keeps no succeeded rows); jobs still held in a table keep them
--   until their row is purged. Sent only for runs that used durable steps.
-- Parameters:
--   $1 ids: text[] — the settled jobs whose runs used steps
-- Locking: the deleted step and event rows.
-- Returns: nothing.
WITH gone AS (
  -- Arrays behind `(SELECT …)`: read by index however many ids (fragments/archive_moved.sql).
  SELECT g.id FROM unnest((SELECT $1::text[])) AS g(id)
  WHERE NOT EXISTS (SELECT 1 FROM :SCHEMA.jobs_hot h WHERE h.id = g.id)
    AND NOT EXISTS (SELECT 1 FROM :SCHEMA.jobs_archive a WHERE a.id = g.id)
), events AS (
  DELETE FROM :SCHEMA.job_events v USING gone WHERE v.job_id = gone.id
)
DELETE FROM :SCHEMA.job_steps s USING gone WHERE s.job_id = gone.id
