-- Purpose: append an entry to the operator audit trail.
-- Parameters:
--   $1 id: text — the entry's id
--   $2 actor: text — who acted
--   $3 action: text — what they did
--   $4 reason: text or NULL — why, if they said
--   $5 target: text — what was acted on (jsonb text)
--   $6 outcome: text — what came of it (jsonb text)
--   $7 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: insert only.
-- Returns: the row.
-- Row: id text, at timestamptz, actor text, action text, reason text or NULL, target jsonb,
--   outcome jsonb
INSERT INTO :SCHEMA.operator_actions (id, at, actor, action, reason, target, outcome)
VALUES ($1::text, :NOW, $2::text, $3::text, $4::text, $5::jsonb, $6::jsonb)
RETURNING *
