-- Purpose: append an entry to the operator audit trail.
-- Parameters: $1 id, $2 actor, $3 action, $4 reason or NULL, $5 target (jsonb text),
--   $6 outcome (jsonb text).
-- Locking: insert only.
-- Returns: the row.
INSERT INTO :SCHEMA.operator_actions (id, at, actor, action, reason, target, outcome)
VALUES ($1::text, now(), $2::text, $3::text, $4::text, $5::jsonb, $6::jsonb)
RETURNING *
