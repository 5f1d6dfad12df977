-- Purpose: an enqueue's dependencies, in the enqueue's transaction after its insert: stores the
--   edges, makes the new jobs that have dependencies awaiting (no claim could see them: they are
--   not committed yet), and marks every job depended on (the new ones and those already hot) so
--   that its worker asks the resolver about its dependents when it settles. Dependencies that
--   are nowhere (not hot, archived or dead) are returned and the caller rolls back.
-- Parameters (parallel arrays, one element per edge):
--   $1 jobIds: text[] — the waiting jobs
--   $2 dependsOn: text[] — the jobs each waits for
--   $3 onDeath: smallint[] — the policy code of each edge (src/job/dependencies.ts)
--   $4 ords: int[] — each edge's place in its job's list
-- Locking: inserts; row locks on the hot rows updated (the new jobs' own, and the depended-on
--   jobs', in id order so that concurrent links cannot deadlock).
-- Returns: the dependencies that are nowhere (none when all exist).
-- Row: depends_on text
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::smallint[], $4::int[])
    AS t(job_id, depends_on, on_death, ord)
),
edges AS (
  INSERT INTO :SCHEMA.job_dependencies (job_id, depends_on, on_death, ord)
  SELECT job_id, depends_on, on_death, ord FROM input
),
-- One UPDATE for both marks: a job of a chain is both waiting and depended on, and a row
-- updated twice in one statement keeps only one of the changes.
marked AS (
  UPDATE :SCHEMA.jobs_hot h
  SET status = CASE WHEN h.id IN (SELECT job_id FROM input) THEN :AWAITING ELSE h.status END,
      has_dependents = CASE WHEN h.id IN (SELECT depends_on FROM input) THEN true
                            ELSE h.has_dependents END
  -- By primary key, in id order (a scan of an id array walks the index in order), as an array the
  -- planner cannot count (see fragments/archive_moved.sql).
  WHERE h.id = ANY(ARRAY(SELECT job_id FROM input UNION SELECT depends_on FROM input))
)
-- A set difference, not anti-joins the planner could answer with sequential scans.
SELECT depends_on FROM input
EXCEPT SELECT h.id FROM :SCHEMA.jobs_hot h WHERE h.id = ANY(ARRAY(SELECT depends_on FROM input))
EXCEPT SELECT a.id FROM :SCHEMA.jobs_archive a WHERE a.id = ANY(ARRAY(SELECT depends_on FROM input))
EXCEPT SELECT q.id FROM :SCHEMA.jobs_dlq q WHERE q.id = ANY(ARRAY(SELECT depends_on FROM input))
