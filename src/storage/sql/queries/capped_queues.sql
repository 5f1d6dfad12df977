-- Purpose: what a claim must know of each queue: `capped` (a maxWorkers cap) and `limited`
--   (pending jobs with a concurrency limit) queues must be locked first
--   (claim_lock_capped_queues); `keyed` queues hold pending jobs with a concurrency key. The
--   store caches this briefly to know whether a claim needs the locked path besides the
--   one-statement fast path.
-- Parameters: none.
-- Locking: none (plain reads; one probe of a partial index per queue and flag).
SELECT q.name, q.max_workers IS NOT NULL AS capped, EXISTS (
  SELECT 1 FROM :SCHEMA.jobs_hot h
  WHERE h.queue = q.name AND h.status = :PENDING AND h.concurrency_key IS NOT NULL
) AS keyed, EXISTS (
  SELECT 1 FROM :SCHEMA.jobs_hot h
  WHERE h.queue = q.name AND h.status = :PENDING AND h.concurrency_limit IS NOT NULL
) AS limited
FROM :SCHEMA.queues q
ORDER BY q.name
