-- Purpose: the resolver's first step: lock awaiting jobs to decide (docs/workflows.md). The
--   given jobs, or those that depend on the given jobs, or (both NULL) any, in id order; only
--   those with a dependency that left the hot table (the others can only wait), so that a pass
--   over many waiting jobs reads them and locks none (a row lock writes the row).
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
  AND ($2::text[] IS NULL OR h.id IN (SELECT d.job_id
                                      FROM :SCHEMA.job_dependencies d
                                      WHERE d.depends_on = ANY($2::text[])))
  AND ($3::text IS NULL OR h.id > $3::text)
  AND EXISTS (SELECT 1
              FROM :SCHEMA.job_dependencies e
              WHERE e.job_id = h.id
                AND NOT EXISTS (SELECT 1 FROM :SCHEMA.jobs_hot c WHERE c.id = e.depends_on))
ORDER BY h.id
LIMIT $4::int
FOR UPDATE OF h
