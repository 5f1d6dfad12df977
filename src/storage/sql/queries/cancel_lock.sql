-- Purpose: first statement of a cancel: lock the hot rows among the ids and read their state, so
--   the following statements act on a state no one else can change until commit.
-- Parameters: $1 ids (text[]).
-- Locking: FOR UPDATE in id order (waits for a claim, start or settle in flight; never deadlocks
--   with another cancel). A row that was deleted meanwhile is not returned.
-- Returns: id and status of each hot row found.
SELECT h.id, h.status
FROM :SCHEMA.jobs_hot h
WHERE h.id = ANY($1::text[])
ORDER BY h.id
FOR UPDATE
