-- Purpose: the next waiting items of a bulk action, in job id order.
-- Parameters: $1 action id, $2 most items (int).
-- Locking: none (the batch that applies them re-checks each item is still waiting).
-- Returns: job_id and version of each item.
SELECT job_id, version FROM :SCHEMA.bulk_action_items
WHERE action_id = $1::text AND status = 0
ORDER BY job_id
LIMIT $2::int
