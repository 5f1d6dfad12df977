-- Purpose: move succeeded jobs processing → archive (or fetched → archive: a run whose start was
--   not recorded yet is recorded with its end, attempts + 1), with the succeeded counter and the success
--   metric bucket changed by exactly the rows moved, in the same statement. lost_attempts is
--   carried over with the bounded history; the note (why the handler was skipped) and the
--   handler's result (JSON) are stored as given; the concurrency key is kept (not the limit). The run that succeeded is read from the row's
--   own columns (started_at, finished_at, worker_id), so nothing is appended to the history.
-- Parameters (parallel arrays): $1 id text[], $2 worker id text[], $3 lease token text[],
--   $4 duration_ms float8[], $5 note text[], $6 result text[] (NULL elements for none; the
--   whole array NULL when every element is), $7 keep boolean[]: false for a job type that keeps
--   no succeeded rows (a queue's keep_succeeded false does the same for all its jobs): moved and
--   counted, not archived (the whole array NULL when every job keeps its row).
-- Locking: row locks on the moved hot rows; stats_summary and metric_buckets rows are upserted
--   once per queue, in queue order, so concurrent settlers cannot deadlock on them, and in this
--   session's shard (counter_shard(), schema 22), so settlers of other sessions rarely wait.
-- Fails with a unique violation of jobs_archive_pkey, changing nothing, when an archived job has
--   the id of a job it archives (a caller-given id used again): the store then runs
--   archive_evict.sql and this again in one transaction.
-- Returns: id and queue of each moved job.
:INCLUDE archive_moved
SELECT id, queue FROM moved
