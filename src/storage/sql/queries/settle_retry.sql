-- Purpose: reschedule jobs (processing, or fetched for a circuit reschedule) → scheduled after a
--   delay (pending without one: the promoter makes scheduled rows pending when due), keeping attempts and storing the error; retried counter + 1 per row moved. A lost run
--   (shutdown abort) is refunded: attempts − 1 (never below 0), lost_attempts + 1. A cancel
--   request on the row is kept, so the job is never claimed again (rescue cancels it). A run that
--   ended (from processing) is appended to the bounded history (last 20 entries), error cut to
--   1000 characters; a circuit reschedule of a fetched row ran nothing and appends nothing.
-- Parameters (parallel arrays):
--   $1 ids: text[] — the jobs' ids
--   $2 workerIds: text[] — the worker holding each lease
--   $3 leaseTokens: text[] — each job's lease token
--   $4 fromStatuses: smallint[] — each job's expected status (1 fetched, 2 processing)
--   $5 delaysMs: float8[] — each job's delay in ms
--   $6 errors: text[] — each job's error
--   $7 lost: boolean[] — whether each run was lost (refunded)
--   $8 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row locks on the updated hot rows; stats_summary rows upserted once per queue, in
--   queue order, in this session's shard (counter_shard()).
-- Returns: id and queue of each rescheduled job.
-- Row: id text, queue text
WITH input AS (
  -- Arrays behind `(SELECT …)`: read by index however many ids (fragments/archive_moved.sql).
  SELECT * FROM unnest((SELECT $1::text[]), (SELECT $2::text[]), (SELECT $3::text[]),
                       (SELECT $4::smallint[]), (SELECT $5::float8[]),
                       (SELECT $6::text[]), (SELECT $7::boolean[]))
    AS t(id, worker_id, lease_token, from_status, delay_ms, error, lost)
),
updated AS (
  UPDATE :SCHEMA.jobs_hot h
  SET status = CASE WHEN i.delay_ms > 0 THEN :SCHEDULED ELSE :PENDING END,
      worker_id = NULL,
      lease_token = NULL,
      heartbeat_at = NULL,
      attempts = CASE WHEN i.lost THEN greatest(h.attempts - 1, 0) ELSE h.attempts END,
      lost_attempts = CASE WHEN i.lost THEN h.lost_attempts + 1 ELSE h.lost_attempts END,
      run_at = :NOW + i.delay_ms * interval '1 millisecond',
      last_error = i.error,
      progress = NULL,
      history = CASE WHEN i.from_status = :PROCESSING THEN jsonb_path_query_array(
        coalesce(h.history, '[]'::jsonb) || jsonb_build_array(jsonb_build_object(
          'kind', 'run', 'attempt', h.attempts, 'startedAt', h.started_at, 'endedAt', :NOW,
          'workerId', h.worker_id, 'outcome', CASE WHEN i.lost THEN 'lost' ELSE 'retried' END,
          'error', left(i.error, :MAX_HISTORY_ERROR))),
        '$[last - :MAX_HISTORY + 1 to last]') ELSE h.history END,
      updated_at = :NOW
  FROM input i
  WHERE h.id = i.id
    AND h.worker_id = i.worker_id
    AND h.lease_token = i.lease_token
    AND h.status = i.from_status
  RETURNING h.id, h.queue
),
stats AS (
  INSERT INTO :SCHEMA.stats_summary AS s (queue, shard, retried_total, last_activity_at)
  SELECT queue, :SCHEMA.counter_shard(), count(*), :NOW FROM updated GROUP BY queue ORDER BY queue
  ON CONFLICT (queue, shard) DO UPDATE SET
    retried_total = s.retried_total + EXCLUDED.retried_total,
    last_activity_at = EXCLUDED.last_activity_at
)
SELECT id, queue FROM updated
