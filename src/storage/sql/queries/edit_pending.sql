-- Purpose: edit a pending job in place (payload, tags, priority); other states are untouched.
-- Parameters: $1 id (text), $2 payload (text) or NULL to keep, $3 replace tags (boolean),
--   $4 tags (text), $5 priority (int) or NULL to keep, $6 actor (text).
-- Locking: row lock on the edited row.
-- Returns: the id when edited.
UPDATE :SCHEMA.jobs_hot
SET payload = coalesce($2::text, payload),
    tags = CASE WHEN $3::boolean THEN $4::text ELSE tags END,
    priority = coalesce($5::int, priority),
    last_modified_by = $6::text,
    updated_at = now()
WHERE id = $1::text AND status = :PENDING
RETURNING id
