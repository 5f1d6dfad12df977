-- Purpose: the skipped items of a bulk action with why, in job id order.
-- Parameters:
--   $1 id: text — the bulk action's id
--   $2 limit: int — most items
-- Locking: none.
-- Returns: job_id and note of each skipped item.
-- Row: job_id text, note text or NULL
SELECT job_id, note FROM :SCHEMA.bulk_action_items
WHERE action_id = $1::text AND status = 2
ORDER BY job_id
LIMIT $2::int
