-- Purpose: end a running bulk action.
-- Parameters:
--   $1 id: text — the bulk action's id
--   $2 status: text — 'succeeded', 'cancelled' or 'failed'
--   $3 error: text or NULL — why it failed
--   $4 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row lock on the action.
-- Returns: nothing.
UPDATE :SCHEMA.bulk_actions
SET status = $2::text, error = $3::text, finished_at = :NOW
WHERE id = $1::text AND status = 'running'
