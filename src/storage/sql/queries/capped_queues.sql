-- Purpose: what a claim must know of each queue: `capped` (a maxWorkers cap) queues must be
--   locked first (claim_lock_capped_queues); `limited` (pending jobs with a concurrency limit)
--   queues are locked by claim_keyed.sql itself, or first when that claim was stale; `keyed`
--   queues hold pending jobs with a concurrency key (claim_keyed.sql instead of claim.sql). The
--   store caches this briefly to choose the statement and whether a claim needs the locked
--   transaction besides the one-statement path.
-- Parameters: none
-- Locking: none (plain reads).
-- Cost: one index probe per queue that holds such jobs, plus one. The queues holding pending
--   keyed (limited) jobs are read off the partial index of such jobs, queue after queue ("loose
--   index scan": the first entry past the last queue found). A probe per queue row (EXISTS …
--   WHERE queue = q.name) was planned as a sequential scan once most hot rows were keyed, and
--   a queue without keyed jobs then read the whole hot table on every refresh.
-- Row: name text, capped boolean, keyed boolean, limited boolean
WITH RECURSIVE keyed(name) AS (
  (SELECT h.queue FROM :SCHEMA.jobs_hot h
   WHERE h.status = :PENDING AND h.concurrency_key IS NOT NULL
   ORDER BY h.queue LIMIT 1)
  UNION ALL
  SELECT (SELECT h.queue FROM :SCHEMA.jobs_hot h
          WHERE h.status = :PENDING AND h.concurrency_key IS NOT NULL AND h.queue > k.name
          ORDER BY h.queue LIMIT 1)
  FROM keyed k
  WHERE k.name IS NOT NULL
),
limited(name) AS (
  (SELECT h.queue FROM :SCHEMA.jobs_hot h
   WHERE h.status = :PENDING AND h.concurrency_limit IS NOT NULL
   ORDER BY h.queue LIMIT 1)
  UNION ALL
  SELECT (SELECT h.queue FROM :SCHEMA.jobs_hot h
          WHERE h.status = :PENDING AND h.concurrency_limit IS NOT NULL AND h.queue > l.name
          ORDER BY h.queue LIMIT 1)
  FROM limited l
  WHERE l.name IS NOT NULL
)
SELECT q.name, q.max_workers IS NOT NULL AS capped,
       EXISTS (SELECT 1 FROM keyed k WHERE k.name = q.name) AS keyed,
       EXISTS (SELECT 1 FROM limited l WHERE l.name = q.name) AS limited
FROM :SCHEMA.queues q
ORDER BY q.name
