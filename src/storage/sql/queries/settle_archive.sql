-- Purpose: move succeeded jobs processing → archive (or fetched → archive: a run whose start was
--   not recorded yet is recorded with its end, attempts + 1), with the succeeded counter and the success
--   metric bucket changed by exactly the rows moved, in the same statement. lost_attempts is
--   carried over with the bounded history; the note (why the handler was skipped) and the
--   handler's result (JSON) are stored as given; the concurrency key is kept (not the limit). The run that succeeded is read from the row's
--   own columns (started_at, finished_at, worker_id), so nothing is appended to the history.
--   A member of a batch counts as succeeded in its batch's row, and the callbacks that makes due
--   fire in this statement (fragments/batch_counted.sql). The store settles a round with
--   settle_archive_plain.sql first, which leaves members where they are, and runs this only for
--   the jobs that one left (members, and lost leases, which move nowhere).
-- Parameters (parallel arrays):
--   $1 ids: text[] — the jobs' ids
--   $2 workerIds: text[] — the worker holding each lease
--   $3 leaseTokens: text[] — each job's lease token
--   $4 durationsMs: float8[] — each run's duration in ms
--   $5 notes: (text or NULL)[] or NULL — each job's note; the whole array NULL when every element is
--   $6 results: (text or NULL)[] or NULL — each job's result; the whole array NULL when every element
--     is
--   $7 keep: boolean[] or NULL — false for a job type that keeps no succeeded rows (a queue's
--     keep_succeeded false does the same for all its jobs): moved and counted, not archived; the
--     whole array NULL when every job keeps its row
--   $8 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row locks on the moved hot rows; stats_summary and metric_buckets rows are upserted
--   once per queue, in queue order, so concurrent settlers cannot deadlock on them, and in this
--   session's shard (counter_shard(), schema 22), so settlers of other sessions rarely wait.
--   A batch row is locked by its update (once per batch; a deadlock between two settlers of the
--   same batches is retried) until the commit: the
--   settlers of one batch's members take turns on it, each reading the other's counts.
-- Fails with a unique violation of jobs_archive_pkey, changing nothing, when an archived job has
--   the id of a job it archives (a caller-given id used again): the store then runs
--   archive_evict.sql and this again in one transaction.
-- Returns: id and queue of each moved job, and whether others depend on it.
-- Row: id text, queue text, has_dependents boolean or NULL
WITH scope AS (SELECT true AS batches)
:INCLUDE archive_moved
:INCLUDE archive_batched
SELECT id, queue, has_dependents FROM moved
