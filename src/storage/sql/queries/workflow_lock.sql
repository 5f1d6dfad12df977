-- Purpose: the resolver's first step: lock awaiting jobs to decide (docs/workflows.md). The
--   given jobs, or those that depend on the given jobs, or (both NULL) any, in id order; only
--   those with something to decide (resolveDependencies in src/job/dependencies.ts): no
--   dependency left in the hot table, or one dead or purged (neither hot nor archived) whose
--   policy is fail (0) or continue (2). The others can only wait, so a pass over many waiting
--   jobs, and the settle of each child but the last of a fan-in, read them and lock none (a row
--   lock writes the row). Nothing is left undecided: the settle that moves a job's last hot
--   dependency commits before its resolver starts, so that resolver's snapshot sees every
--   dependency out of the hot table, whichever settle committed first.
-- Parameters:
--   $1 jobs: text[] or NULL — these awaiting jobs; NULL for any
--   $2 dependenciesOf: text[] or NULL — only awaiting jobs that depend on one of these; NULL for any
--   $3 after: text or NULL — only jobs whose id sorts after this one; NULL from the first
--   $4 limit: int — most jobs
-- Locking: FOR UPDATE on the awaiting rows, in id order, so that two resolvers lock in the
--   same order and cannot deadlock. Waiting for a lock (not skipping it) is what lets a resolver
--   that a settle started after another resolver read the settled job as hot decide again: its
--   next statement reads a snapshot taken after that resolver committed.
-- Returns: the locked jobs.
-- Row: id text, queue text
SELECT h.id, h.queue
FROM :SCHEMA.jobs_hot h
WHERE h.status = :AWAITING
  AND ($1::text[] IS NULL OR h.id = ANY($1::text[]))
  -- The IN stands alone (an IN under an OR is planned as a filter over every awaiting row): with
  -- dependencies given it is a join from their edges, without it one probe per awaiting row.
  AND h.id IN (SELECT d.job_id
               FROM :SCHEMA.job_dependencies d
               WHERE $2::text[] IS NULL OR d.depends_on = ANY($2::text[]))
  AND ($3::text IS NULL OR h.id > $3::text)
  -- Scalar subqueries, evaluated for each candidate through the primary keys: an EXISTS under
  -- the OR would be planned as a hash over both tables whole, at every call.
  AND ((SELECT 1
        FROM :SCHEMA.job_dependencies e
        JOIN :SCHEMA.jobs_hot c ON c.id = e.depends_on
        WHERE e.job_id = h.id
        LIMIT 1) IS NULL
       OR (SELECT 1
           FROM :SCHEMA.job_dependencies e
           WHERE e.job_id = h.id AND e.on_death IN (0, 2)
             AND NOT EXISTS (SELECT 1 FROM :SCHEMA.jobs_hot c WHERE c.id = e.depends_on)
             AND NOT EXISTS (SELECT 1 FROM :SCHEMA.jobs_archive a WHERE a.id = e.depends_on)
           LIMIT 1) IS NOT NULL)
ORDER BY h.id
LIMIT $4::int
FOR UPDATE OF h
