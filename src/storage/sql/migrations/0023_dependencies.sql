-- ChokaQ schema, version 23: jobs that wait for other jobs (docs/workflows.md). A job enqueued
-- with dependencies is `awaiting` (status 4), outside every claim and promoter index, until the
-- resolver (src/storage/sql/workflows.ts) makes it pending, scheduled or dead from the states of
-- the jobs it depends on. One row per edge says which job waits for which and what the
-- dependency's death does to the waiting job.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
ALTER TABLE :SCHEMA.jobs_hot DROP CONSTRAINT IF EXISTS jobs_hot_status_check;
ALTER TABLE :SCHEMA.jobs_hot ADD CONSTRAINT jobs_hot_status_check CHECK (status IN (0, 1, 2, 3, 4));

-- True on a hot job that others depend on: the claim hands it to the worker, which asks the
-- resolver about the job's dependents once it settles (NULL, the default, costs no row space).
ALTER TABLE :SCHEMA.jobs_hot ADD COLUMN IF NOT EXISTS has_dependents boolean;

CREATE TABLE IF NOT EXISTS :SCHEMA.job_dependencies (
  -- The job that waits.
  job_id text NOT NULL,
  -- The job it waits for: hot, archived, dead or purged.
  depends_on text NOT NULL,
  -- What the dependency's death does to job_id: 0 fail, 1 skip, 2 continue.
  on_death smallint NOT NULL CHECK (on_death IN (0, 1, 2)),
  -- The dependency's place in the list it was enqueued with.
  ord int NOT NULL,
  PRIMARY KEY (job_id, depends_on)
);

-- The dependents of a job that settled: the resolver's way from a child to its parents.
CREATE INDEX IF NOT EXISTS job_dependencies_depends_on_idx
  ON :SCHEMA.job_dependencies (depends_on);

-- The operator query's creation order of the rows not claimed (src/storage/sql/job-query.ts
-- reads them apart from the active ones): awaiting rows join pending and scheduled ones.
DROP INDEX IF EXISTS :SCHEMA.jobs_hot_waiting_created_idx;
CREATE INDEX IF NOT EXISTS jobs_hot_waiting_created_idx
  ON :SCHEMA.jobs_hot (created_at, id) WHERE status IN (0, 3, 4);

-- The resolver's periodic pass: awaiting rows in id order, a page after another.
CREATE INDEX IF NOT EXISTS jobs_hot_awaiting_idx ON :SCHEMA.jobs_hot (id) WHERE status = 4;
