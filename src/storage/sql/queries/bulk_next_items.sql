-- Purpose: the next waiting items of a bulk action, in job id order.
-- Parameters:
--   $1 id: text — the bulk action's id
--   $2 limit: int — most items
-- Locking: none (the batch that applies them re-checks each item is still waiting).
-- Returns: job_id and version of each item.
-- Row: job_id text, version bigint
SELECT job_id, version FROM :SCHEMA.bulk_action_items
WHERE action_id = $1::text AND status = 0
ORDER BY job_id
LIMIT $2::int
