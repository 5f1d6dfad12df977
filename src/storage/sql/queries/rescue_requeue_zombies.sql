-- Purpose: rescue step (b), retry: zombies of opted-in types go back to pending, due now, with
--   the lost run refunded (attempts − 1, never below 0; lost_attempts + 1) and the reason as
--   last_error; retried counter + 1 per row moved. The lost run is appended to the bounded
--   history (last 20 entries) as a `zombie` run.
-- Parameters:
--   $1 ids: text[] — the jobs picked by rescue_pick_zombies
--   $2 error: text — their last_error
--   $3 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: the rows are already locked by rescue_pick_zombies in this transaction;
--   stats_summary rows are upserted once per queue, in queue order, in this session's shard.
-- Returns: id, queue, type of each requeued job.
-- Row: as move_to_dlq
WITH updated AS (
  UPDATE :SCHEMA.jobs_hot h
  SET status = :PENDING,
      worker_id = NULL,
      lease_token = NULL,
      heartbeat_at = NULL,
      attempts = greatest(h.attempts - 1, 0),
      lost_attempts = h.lost_attempts + 1,
      run_at = :NOW,
      last_error = $2::text,
      progress = NULL,
      history = jsonb_path_query_array(
        coalesce(h.history, '[]'::jsonb) || jsonb_build_array(jsonb_build_object(
          'kind', 'run', 'attempt', h.attempts, 'startedAt', h.started_at, 'endedAt', :NOW,
          'workerId', h.worker_id, 'outcome', 'zombie', 'error', left($2::text, :MAX_HISTORY_ERROR))),
        '$[last - :MAX_HISTORY + 1 to last]'),
      updated_at = :NOW
  WHERE h.id = ANY($1::text[])
    AND h.status = :PROCESSING
  RETURNING h.id, h.queue, h.type
),
stats AS (
  INSERT INTO :SCHEMA.stats_summary AS s (queue, shard, retried_total, last_activity_at)
  SELECT queue, :SCHEMA.counter_shard(), count(*), :NOW FROM updated GROUP BY queue ORDER BY queue
  ON CONFLICT (queue, shard) DO UPDATE SET
    retried_total = s.retried_total + EXCLUDED.retried_total,
    last_activity_at = EXCLUDED.last_activity_at
)
SELECT id, queue, type FROM updated
