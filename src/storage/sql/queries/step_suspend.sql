-- Purpose: a sleep or event wait gives the job's slot back: the held job (fetched or processing
--   under the lease) becomes scheduled until wakeAt, unless wakeAt has passed. A processing run
--   is refunded (attempts − 1, never below 0: a suspension is no attempt); a fetched one (its
--   start not recorded yet) used none. Either run is appended to the bounded history as
--   `suspended` with what it waits for (a fetched one without its start); no counter moves.
-- Parameters:
--   $1 id: text — the job
--   $2 workerId: text — the worker holding its lease
--   $3 leaseToken: text — its lease token
--   $4 wakeAt: timestamptz — when it is due again
--   $5 note: text — what it waits for, kept in the history entry's error field
--   $6 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: the hot row (held already by step_hold.sql).
-- Returns: the job when it was suspended; no row when wakeAt has passed or the lease is gone.
-- Row: id text, queue text
UPDATE :SCHEMA.jobs_hot h
SET status = :SCHEDULED,
    worker_id = NULL,
    lease_token = NULL,
    heartbeat_at = NULL,
    attempts = CASE WHEN h.status = :PROCESSING THEN greatest(h.attempts - 1, 0) ELSE h.attempts END,
    run_at = $4,
    progress = NULL,
    history = jsonb_path_query_array(
      coalesce(h.history, '[]'::jsonb) || jsonb_build_array(jsonb_build_object(
        'kind', 'run',
        'attempt', CASE WHEN h.status = :PROCESSING THEN h.attempts ELSE h.attempts + 1 END,
        'startedAt', CASE WHEN h.status = :PROCESSING THEN h.started_at END,
        'endedAt', :NOW, 'workerId', h.worker_id, 'outcome', 'suspended',
        'error', left($5, :MAX_HISTORY_ERROR))),
      '$[last - :MAX_HISTORY + 1 to last]'),
    updated_at = :NOW
WHERE h.id = $1
  AND h.worker_id = $2
  AND h.lease_token = $3
  AND h.status IN (:FETCHED, :PROCESSING)
  AND $4::timestamptz > :NOW
RETURNING h.id, h.queue
