-- Purpose: names of queues that have a maxWorkers cap. The store caches them briefly to know
--   whether a claim needs the locked (capped) path besides the one-statement fast path.
-- Parameters: none.
-- Locking: none (plain read).
SELECT name FROM :SCHEMA.queues WHERE max_workers IS NOT NULL ORDER BY name
