-- Purpose: ask a bulk action to stop: a previewed one is cancelled at once, a running one gets a
--   cancel request its runner sees before the next batch. Finished actions are left alone.
-- Parameters:
--   $1 id: text — the bulk action's id
--   $2 actor: text — who asks to cancel it
--   $3 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row lock on the action.
-- Returns: the row as it is afterwards, if it exists.
-- Row: as bulk_get
WITH changed AS (
  UPDATE :SCHEMA.bulk_actions
  SET cancel_requested_at = coalesce(cancel_requested_at, :NOW),
      cancel_requested_by = coalesce(cancel_requested_by, $2::text),
      status = CASE WHEN status = 'previewed' THEN 'cancelled' ELSE status END,
      finished_at = CASE WHEN status = 'previewed' THEN :NOW ELSE finished_at END
  WHERE id = $1::text AND status IN ('previewed', 'running')
  RETURNING *
)
SELECT * FROM changed
UNION ALL
SELECT * FROM :SCHEMA.bulk_actions WHERE id = $1::text AND NOT EXISTS (SELECT 1 FROM changed)
