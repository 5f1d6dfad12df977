-- Purpose: the workflow a job belongs to, for the operator: every job connected to it through
--   dependencies in either direction (nearest first, at most `limit`), each where it is now, with
--   the dependencies it waits for. A job in no table (purged) is a row with neither a hot status
--   nor archived nor dead.
-- Parameters:
--   $1 id: text — the job the walk starts from
--   $2 limit: int — most jobs (the caller asks one more than it shows, to know it cut the walk)
-- Locking: none (reads). The walk follows job_dependencies' primary key (job_id first) to a
--   job's dependencies and job_dependencies_depends_on_idx to its dependents; the recursive
--   UNION keeps each job once, so the walk ends, and the LIMIT stops it once `limit` jobs are
--   found, however large the workflow.
-- Returns: one row per job.
-- Row: id text, hot_status smallint or NULL, archived boolean, dead boolean, queue text or NULL,
--   type text or NULL, attempts int or NULL, created_at timestamptz or NULL,
--   run_at timestamptz or NULL, started_at timestamptz or NULL, finished_at timestamptz or NULL,
--   failure_reason smallint or NULL, error text or NULL, depends_on text[] or NULL,
--   on_death smallint[] or NULL
WITH RECURSIVE reach(id) AS (
  -- In the ids' collation, as job_dependencies holds them (a recursive term keeps one collation).
  SELECT $1::text COLLATE "C"
  UNION
  SELECT next.id
  FROM reach r
  CROSS JOIN LATERAL (
    SELECT d.depends_on AS id FROM :SCHEMA.job_dependencies d WHERE d.job_id = r.id
    UNION ALL
    SELECT d.job_id AS id FROM :SCHEMA.job_dependencies d WHERE d.depends_on = r.id
  ) next
),
found AS (
  SELECT id FROM reach LIMIT $2::int
)
SELECT f.id, h.status AS hot_status, a.id IS NOT NULL AS archived, q.id IS NOT NULL AS dead,
       coalesce(h.queue, a.queue, q.queue) AS queue,
       coalesce(h.type, a.type, q.type) AS type,
       coalesce(h.attempts, a.attempts, q.attempts) AS attempts,
       coalesce(h.created_at, a.created_at, q.created_at) AS created_at,
       h.run_at,
       coalesce(h.started_at, a.started_at, q.started_at) AS started_at,
       coalesce(a.finished_at, q.failed_at) AS finished_at,
       q.failure_reason,
       coalesce(h.last_error, q.error_details) AS error,
       edges.depends_on, edges.on_death
FROM found f
-- Each lookup is a LATERAL with LIMIT 1, which the planner keeps as a probe of the table's
-- primary key per job found: a join it may flatten would read a large hot table in full (a hash
-- join over 24,000 hot rows for 1,000 jobs, PostgreSQL 15, 2026-12-06).
LEFT JOIN LATERAL (
  SELECT x.status, x.queue, x.type, x.attempts, x.created_at, x.run_at, x.started_at,
         x.last_error
  FROM :SCHEMA.jobs_hot x WHERE x.id = f.id LIMIT 1
) h ON true
LEFT JOIN LATERAL (
  SELECT x.id, x.queue, x.type, x.attempts, x.created_at, x.started_at, x.finished_at
  FROM :SCHEMA.jobs_archive x WHERE h.status IS NULL AND x.id = f.id LIMIT 1
) a ON true
LEFT JOIN LATERAL (
  SELECT x.id, x.queue, x.type, x.attempts, x.created_at, x.started_at, x.failed_at,
         x.failure_reason, x.error_details
  FROM :SCHEMA.jobs_dlq x WHERE h.status IS NULL AND a.id IS NULL AND x.id = f.id LIMIT 1
) q ON true
LEFT JOIN LATERAL (
  SELECT array_agg(d.depends_on ORDER BY d.ord) AS depends_on,
         array_agg(d.on_death ORDER BY d.ord) AS on_death
  FROM :SCHEMA.job_dependencies d
  WHERE d.job_id = f.id
) edges ON true
