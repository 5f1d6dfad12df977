-- Purpose: edit a DLQ job in place (payload, tags) before an operator resurrects it; the edit is
--   appended to the bounded history (last 20 entries) with its actor, and edited_at changes the
--   row's version (see bulk actions).
-- Parameters:
--   $1 id: text — the job's id
--   $2 payload: text or NULL — the new payload; NULL keeps it
--   $3 replaceTags: boolean — whether to replace the tags
--   $4 tags: text or NULL — the new tags
--   $5 actor: text — who edits
--   $6 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row lock on the edited row.
-- Returns: the id when edited.
UPDATE :SCHEMA.jobs_dlq
SET payload = coalesce($2::text, payload),
    tags = CASE WHEN $3::boolean THEN $4::text ELSE tags END,
    last_modified_by = $5::text,
    edited_at = :NOW,
    history = jsonb_path_query_array(
      coalesce(history, '[]'::jsonb) || jsonb_build_array(jsonb_build_object(
        'kind', 'action', 'action', 'edit', 'actor', $5::text, 'at', :NOW)),
      '$[last - :MAX_HISTORY + 1 to last]')
WHERE id = $1::text
RETURNING id
