-- Purpose: what a claim must know of each queue: `capped` (a maxWorkers cap) queues must be
--   locked first (claim_lock_capped_queues); `limited` (pending jobs with a concurrency limit)
--   queues are locked by claim_keyed.sql itself, or first when that claim was stale; `keyed`
--   queues hold pending jobs with a concurrency key (claim_keyed.sql instead of claim.sql). The
--   store caches this briefly to choose the statement and whether a claim needs the locked
--   transaction besides the one-statement path.
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
