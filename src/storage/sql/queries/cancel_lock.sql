-- Purpose: first statement of a cancel: lock the hot rows among the ids and read their state, so
--   the following statements act on a state no one else can change until commit.
-- Parameters:
--   $1 ids: text[] — the jobs to cancel
-- Locking: FOR UPDATE in id order (waits for a claim, start or settle in flight; never deadlocks
--   with another cancel). A row that was deleted meanwhile is not returned.
-- Returns: id, status and version_us (the row's version for bulk snapshots: changed_at, else
--   created_at, in microseconds since the epoch) of each hot row found.
-- Row: id text, status smallint, version_us bigint
SELECT h.id, h.status,
       (extract(epoch FROM coalesce(h.changed_at, h.created_at)) * 1000000)::bigint AS version_us
FROM :SCHEMA.jobs_hot h
WHERE h.id = ANY($1::text[])
ORDER BY h.id
FOR UPDATE
