-- Purpose: after an archive settle, delete the steps and events of the settled jobs that left no
--   row (their queue or type keeps no succeeded rows); jobs still held in a table keep them
--   until their row is purged. Sent only for runs that used durable steps.
-- Parameters:
--   $1 ids: text[] — the settled jobs whose runs used steps
-- Locking: the deleted step and event rows.
-- Returns: nothing.
-- Every table is read by its index however many ids: the ids as arrays the planner cannot count
-- (see fragments/archive_moved.sql); the ids held nowhere as a set difference, not an anti-join it
-- could answer with a sequential scan.
WITH given AS (
  SELECT DISTINCT g.id FROM unnest($1::text[]) AS g(id)
), held AS (
  SELECT h.id FROM :SCHEMA.jobs_hot h WHERE h.id = ANY(ARRAY(SELECT id FROM given))
  UNION
  SELECT a.id FROM :SCHEMA.jobs_archive a WHERE a.id = ANY(ARRAY(SELECT id FROM given))
), gone AS (
  SELECT id FROM given EXCEPT SELECT id FROM held
), events AS (
  DELETE FROM :SCHEMA.job_events v WHERE v.job_id = ANY(ARRAY(SELECT id FROM gone))
)
DELETE FROM :SCHEMA.job_steps s WHERE s.job_id = ANY(ARRAY(SELECT id FROM gone))
