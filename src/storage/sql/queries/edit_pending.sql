-- Purpose: edit a waiting (pending or scheduled) job in place (payload, tags, priority, run-at;
--   a run-at later makes it scheduled, one of now pending); other states are
--   untouched; changed_at (the row's version for bulk snapshots) is stamped. The edit is appended to the bounded history (last 20 entries) with its actor.
-- Parameters:
--   $1 id: text — the job's id
--   $2 payload: text or NULL — the new payload; NULL keeps it
--   $3 replaceTags: boolean — whether to replace the tags
--   $4 tags: text or NULL — the new tags
--   $5 priority: int or NULL — the new priority; NULL keeps it
--   $6 actor: text — who edits
--   $7 delayMs: float8 or NULL — the new delay in ms from now; NULL keeps run_at
--   $8 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row lock on the edited row.
-- Returns: the id when edited.
UPDATE :SCHEMA.jobs_hot
SET payload = coalesce($2::text, payload),
    tags = CASE WHEN $3::boolean THEN $4::text ELSE tags END,
    priority = coalesce($5::int, priority),
    -- A new run-at decides the state: later → scheduled, now → pending (claimable at once).
    status = CASE WHEN $7::float8 IS NULL THEN status
                  WHEN $7::float8 > 0 THEN :SCHEDULED ELSE :PENDING END,
    run_at = CASE WHEN $7::float8 IS NULL THEN run_at
                  ELSE :NOW + $7::float8 * interval '1 millisecond' END,
    last_modified_by = $6::text,
    history = jsonb_path_query_array(
      coalesce(history, '[]'::jsonb) || jsonb_build_array(jsonb_build_object(
        'kind', 'action', 'action', 'edit', 'actor', $6::text, 'at', :NOW)),
      '$[last - :MAX_HISTORY + 1 to last]'),
    updated_at = :NOW,
    changed_at = :NOW
WHERE id = $1::text AND status IN (:PENDING, :SCHEDULED)
RETURNING id
