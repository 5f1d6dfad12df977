-- Purpose: the resolver's release: awaiting jobs whose dependencies allow it become pending, or
--   scheduled when the delay they were enqueued with has not passed. As a promotion, the row
--   keeps its run_at, updated_at and changed_at.
-- Parameters:
--   $1 ids: text[] — the jobs (locked by workflow_lock.sql in this transaction)
--   $2 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row locks on the released rows (held already).
-- Returns: each released job with its new status.
-- Row: id text, queue text, status smallint
UPDATE :SCHEMA.jobs_hot h
SET status = CASE WHEN h.run_at > :NOW THEN :SCHEDULED ELSE :PENDING END
WHERE h.id = ANY($1::text[]) AND h.status = :AWAITING
RETURNING h.id, h.queue, h.status
