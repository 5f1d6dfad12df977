-- Purpose: rescue step (b), selection: processing rows whose last sign of life
--   (coalesce(heartbeat_at, started_at, updated_at)) is older than their queue's zombie timeout,
--   or the global one when the queue has none, and what to do with each: cancel (a cancel
--   request is pending), retry (its lower-cased type is opted in and lost_attempts is below the
--   type's maximum) or dead. The moves are made by rescue_requeue_zombies and move_to_dlq in
--   the same transaction.
-- Parameters:
--   $1 timeoutMs: float8 — the global processing timeout in ms
--   $2 limit: int — most rows
--   $3 retryTypes: text[] — the opted-in type keys, lower-case
--   $4 maxLost: float8[] — their lost_attempts maximum, parallel to $3
--   $5 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: FOR UPDATE OF the hot rows, SKIP LOCKED: a row a worker is settling or heartbeating
--   right now is not a zombie this time; the locks are held until the rescue transaction ends.
--   Processing rows are found through the small partial jobs_hot_active_idx; the first age test
--   uses the smallest timeout of any queue (an init plan), the second each row's own timeout.
-- Returns: id, queue, type, cancel_requested_by, action ('cancel' | 'retry' | 'dead').
-- Row: id text, queue text, type text, cancel_requested_by text or NULL, action text
WITH retry_types AS (
  SELECT * FROM unnest($3::text[], $4::float8[]) AS t(type_key, max_lost)
)
SELECT h.id, h.queue, h.type, h.cancel_requested_by,
       CASE
         WHEN h.cancel_requested_at IS NOT NULL THEN 'cancel'
         WHEN r.max_lost IS NOT NULL AND h.lost_attempts < r.max_lost THEN 'retry'
         ELSE 'dead'
       END AS action
FROM :SCHEMA.jobs_hot h
LEFT JOIN :SCHEMA.queues q ON q.name = h.queue
LEFT JOIN retry_types r ON r.type_key = lower(h.type)
WHERE h.status = :PROCESSING
  AND coalesce(h.heartbeat_at, h.started_at, h.updated_at) < :NOW - (
    SELECT least($1::float8, min(zombie_timeout_seconds)::float8 * 1000) FROM :SCHEMA.queues
  ) * interval '1 millisecond'
  AND coalesce(h.heartbeat_at, h.started_at, h.updated_at)
      < :NOW - coalesce(q.zombie_timeout_seconds::float8 * 1000, $1::float8)
                * interval '1 millisecond'
ORDER BY coalesce(h.heartbeat_at, h.started_at, h.updated_at), h.id
LIMIT $2::int
FOR UPDATE OF h SKIP LOCKED
