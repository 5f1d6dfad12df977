-- Purpose: start a previewed bulk action whose token hash matches and whose preview has not
--   expired: status running, actor and reason stamped. A row already running with the same
--   token hash is returned unchanged (a retried start).
-- Parameters:
--   $1 id: text — the bulk action's id
--   $2 tokenHash: text — the hash of the confirmation token given
--   $3 actor: text — who starts it
--   $4 reason: text — why
--   $5 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row lock on the action.
-- Returns: the row after the update, with `started` true when this call started it; or the
--   unchanged row (the caller tells why it did not start).
-- Row: id text, action text, target jsonb, edit jsonb or NULL, status text, total int, done int,
--   applied int, skipped int, actor text or NULL, reason text or NULL, error text or NULL,
--   created_at timestamptz, expires_at timestamptz, started_at timestamptz or NULL,
--   finished_at timestamptz or NULL, cancel_requested_at timestamptz or NULL,
--   cancel_requested_by text or NULL, token_hash text, started boolean
WITH started AS (
  UPDATE :SCHEMA.bulk_actions
  SET status = 'running', actor = $3::text, reason = $4::text, started_at = :NOW
  WHERE id = $1::text AND status = 'previewed' AND token_hash = $2::text AND expires_at > :NOW
  RETURNING *, true AS started
)
SELECT * FROM started
UNION ALL
SELECT b.*, false AS started FROM :SCHEMA.bulk_actions b
WHERE b.id = $1::text AND NOT EXISTS (SELECT 1 FROM started)
