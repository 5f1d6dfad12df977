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
  -- Arrays behind `(SELECT …)`: read by index however many ids (fragments/archive_moved.sql).
  SELECT * FROM unnest((SELECT $1::text[]), (SELECT $2::text[]), (SELECT $3::smallint[]),
                       (SELECT $4::int[]))
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
  WHERE h.id IN (SELECT job_id FROM input UNION SELECT depends_on FROM input ORDER BY 1)
)
SELECT DISTINCT i.depends_on
FROM input i
WHERE NOT EXISTS (SELECT 1 FROM :SCHEMA.jobs_hot h WHERE h.id = i.depends_on)
  AND NOT EXISTS (SELECT 1 FROM :SCHEMA.jobs_archive a WHERE a.id = i.depends_on)
  AND NOT EXISTS (SELECT 1 FROM :SCHEMA.jobs_dlq q WHERE q.id = i.depends_on)
