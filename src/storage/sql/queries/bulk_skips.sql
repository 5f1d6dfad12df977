-- Purpose: the skipped items of a bulk action with why, in job id order.
-- Parameters: $1 action id, $2 most items (int).
-- Locking: none.
-- Returns: job_id and note of each skipped item.
SELECT job_id, note FROM :SCHEMA.bulk_action_items
WHERE action_id = $1::text AND status = 2
ORDER BY job_id
LIMIT $2::int
