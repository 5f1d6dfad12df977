-- Purpose: settle_archive.sql for jobs in no batch: the same moves, counters and buckets, without
--   the batch counters. A round of plain jobs (nearly every round) then runs no batch statement
--   parts, which cost a statement about 20 µs even when they find no member (docs/benchmarks.md).
--   A member of a batch is left in the hot table, untouched, and not returned: the store runs
--   settle_archive.sql for every job this did not move.
-- Parameters (parallel arrays):
--   $1 ids: text[] — as settle_archive.sql
--   $2 workerIds: text[] — as settle_archive.sql
--   $3 leaseTokens: text[] — as settle_archive.sql
--   $4 durationsMs: float8[] — as settle_archive.sql
--   $5 notes: (text or NULL)[] or NULL — as settle_archive.sql
--   $6 results: (text or NULL)[] or NULL — as settle_archive.sql
--   $7 keep: boolean[] or NULL — as settle_archive.sql
--   $8 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking and a reused archived id: as settle_archive.sql; no batch row is read.
-- Returns: id and queue of each moved job, and whether others depend on it.
-- Row: id text, queue text, has_dependents boolean or NULL
WITH scope AS (SELECT false AS batches)
:INCLUDE archive_moved
SELECT id, queue, has_dependents FROM moved
