-- Purpose: move hot rows → DLQ with a reason and error per row, with the failed counter and the
--   failure metric bucket (per reason), the row's error group (dlq_error_groups) and its hour
--   (dlq_error_group_hours, whose hours past two days go) changed by exactly the rows moved; lost_attempts, progress and the bounded history are carried over (the
--   final run is read from the DLQ row's own columns). started_at is kept only for a row moved
--   from processing: a pending or fetched row did not run now (a cancel, an open circuit), and
--   its DLQ row says so with a NULL start. A cancel — a row carrying a cancel request, or moved
--   with reason Cancelled (code 1) — appends a `cancel` action to the history: the requester
--   (the stored cancel_requested_by, else $5) at the request time (else now), and the requester
--   becomes last_modified_by unless $5 names someone. The one statement behind every DLQ move: a
--   worker's settle (lease-guarded), cancel and the rescue steps (their rows are already locked
--   and checked).
-- Parameters (parallel arrays):
--   $1 ids: text[] — the jobs' ids
--   $2 fromStatuses: smallint[] — each job's expected status (0 pending, 1 fetched, 2 processing)
--   $3 reasons: smallint[] — each job's failure reason code
--   $4 errors: text[] — each job's error
--   $5 actors: (text or NULL)[] — each job's last_modified_by; NULL elements keep the row's
--   $6 workerIds: (text or NULL)[] — with $7: a row moves only while it still holds that lease;
--     NULL elements (cancel and rescue, which locked the rows themselves) skip the lease guard
--   $7 leaseTokens: (text or NULL)[] — each job's lease token, as $6
--   $8 fingerprints: text[] — each error's fingerprint (the error signature of
--     src/job/fingerprint.ts)
--   $9 errorClasses: text[] — each error's class
--   $10 messages: text[] — each error's normalised message
--   $11 frames: (text or NULL)[] — each error's top user frame
--   $12 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row locks on the moved hot rows; stats_summary, metric_buckets, dlq_error_groups and
--   dlq_error_group_hours rows are upserted once per key, in key order, so concurrent movers
--   cannot deadlock on them; the first two in this session's shard (counter_shard()).
-- Returns: id, queue, type of each moved job, and whether others depend on it.
-- Row: id text, queue text, type text, has_dependents boolean or NULL
WITH input AS (
  -- Arrays behind `(SELECT …)`: read by index however many ids (fragments/archive_moved.sql).
  SELECT * FROM unnest((SELECT $1::text[]), (SELECT $2::smallint[]), (SELECT $3::smallint[]),
                       (SELECT $4::text[]), (SELECT $5::text[]),
                       (SELECT $6::text[]), (SELECT $7::text[]),
                       (SELECT $8::text[]), (SELECT $9::text[]),
                       (SELECT $10::text[]), (SELECT $11::text[]))
    AS t(id, from_status, reason, error, actor, worker_id, lease_token, fingerprint, error_class,
         message, frame)
),
moved AS (
  DELETE FROM :SCHEMA.jobs_hot h
  USING input i
  WHERE h.id = i.id
    AND h.status = i.from_status
    AND (i.worker_id IS NULL OR (h.worker_id = i.worker_id AND h.lease_token = i.lease_token))
  RETURNING h.id, h.queue, h.type, h.payload, h.tags, h.attempts, h.lost_attempts, h.worker_id,
            h.created_by, h.concurrency_key, h.concurrency_limit, h.has_dependents, h.batch_id,
            coalesce(i.actor, CASE WHEN i.reason = 1 THEN h.cancel_requested_by END,
                     h.last_modified_by) AS last_modified_by,
            h.created_at,
            CASE WHEN h.status = :PROCESSING THEN h.started_at END AS started_at,
            h.progress,
            CASE WHEN h.cancel_requested_at IS NOT NULL OR i.reason = 1
              THEN jsonb_path_query_array(coalesce(h.history, '[]'::jsonb) || jsonb_build_array(
                jsonb_build_object('kind', 'action', 'action', 'cancel',
                                   'actor', coalesce(h.cancel_requested_by, i.actor, 'unknown'),
                                   'at', coalesce(h.cancel_requested_at, :NOW))),
                '$[last - :MAX_HISTORY + 1 to last]')
              ELSE h.history END AS history,
            i.reason, i.error, i.fingerprint, i.error_class, i.message, i.frame
),
ins AS (
  INSERT INTO :SCHEMA.jobs_dlq (id, queue, type, payload, tags, failure_reason, error_details,
                                attempts, lost_attempts, worker_id, created_by, last_modified_by,
                                created_at, failed_at, started_at, progress, history, fingerprint,
                                concurrency_key, concurrency_limit, batch_id)
  SELECT id, queue, type, payload, tags, reason, error, attempts, lost_attempts, worker_id,
         created_by, last_modified_by, created_at, :NOW, started_at, progress, history,
         fingerprint, concurrency_key, concurrency_limit, batch_id
  FROM moved
  ON CONFLICT (id) DO UPDATE SET
    queue = EXCLUDED.queue, type = EXCLUDED.type, payload = EXCLUDED.payload,
    tags = EXCLUDED.tags, failure_reason = EXCLUDED.failure_reason,
    error_details = EXCLUDED.error_details, attempts = EXCLUDED.attempts,
    lost_attempts = EXCLUDED.lost_attempts,
    worker_id = EXCLUDED.worker_id, created_by = EXCLUDED.created_by,
    last_modified_by = EXCLUDED.last_modified_by, created_at = EXCLUDED.created_at,
    failed_at = EXCLUDED.failed_at, started_at = EXCLUDED.started_at,
    progress = EXCLUDED.progress, history = EXCLUDED.history, fingerprint = EXCLUDED.fingerprint,
    concurrency_key = EXCLUDED.concurrency_key, concurrency_limit = EXCLUDED.concurrency_limit,
    batch_id = EXCLUDED.batch_id
),
grouped AS (
  INSERT INTO :SCHEMA.dlq_error_groups AS g (fingerprint, queue, type, error_class, message,
                                             frame, dead_count, first_seen, last_seen)
  SELECT fingerprint, queue, type, min(error_class), min(message), min(frame), count(*), :NOW,
         :NOW
  FROM moved GROUP BY fingerprint, queue, type ORDER BY fingerprint, queue, type
  ON CONFLICT (fingerprint, queue, type) DO UPDATE SET
    dead_count = g.dead_count + EXCLUDED.dead_count,
    last_seen = EXCLUDED.last_seen
),
hours AS (
  INSERT INTO :SCHEMA.dlq_error_group_hours AS h (fingerprint, hour_start, dead_count)
  -- The hour on the epoch (UTC), whatever the session's time zone: the trend's hours line up.
  SELECT fingerprint, to_timestamp(floor(extract(epoch FROM :NOW) / 3600) * 3600), count(*)
  FROM moved GROUP BY fingerprint ORDER BY fingerprint
  ON CONFLICT (fingerprint, hour_start) DO UPDATE SET dead_count = h.dead_count + EXCLUDED.dead_count
),
old_hours AS (
  -- Rows another mover is deleting are skipped, not waited for: no lock order to get wrong.
  DELETE FROM :SCHEMA.dlq_error_group_hours h
  USING (SELECT o.fingerprint, o.hour_start
         FROM :SCHEMA.dlq_error_group_hours o
         WHERE o.fingerprint IN (SELECT fingerprint FROM moved)
           AND o.hour_start < :NOW - interval '49 hours'
         FOR UPDATE OF o SKIP LOCKED) old
  WHERE h.fingerprint = old.fingerprint AND h.hour_start = old.hour_start
),
stats AS (
  INSERT INTO :SCHEMA.stats_summary AS s (queue, shard, failed_total, last_activity_at)
  SELECT queue, :SCHEMA.counter_shard(), count(*), :NOW FROM moved GROUP BY queue ORDER BY queue
  ON CONFLICT (queue, shard) DO UPDATE SET
    failed_total = s.failed_total + EXCLUDED.failed_total,
    last_activity_at = EXCLUDED.last_activity_at
),
buckets AS (
  INSERT INTO :SCHEMA.metric_buckets AS b (bucket_start, queue, outcome, failure_reason, shard,
                                           completed_count, duration_count, total_duration_ms,
                                           max_duration_ms, updated_at)
  SELECT date_trunc('second', :NOW), queue, 1, reason, :SCHEMA.counter_shard(), count(*), 0, 0,
         NULL, :NOW
  FROM moved GROUP BY queue, reason ORDER BY queue, reason
  ON CONFLICT (bucket_start, queue, outcome, failure_reason, shard) DO UPDATE SET
    completed_count = b.completed_count + EXCLUDED.completed_count,
    updated_at = EXCLUDED.updated_at
),
-- A member of a batch: a cancel (reason Cancelled) counts as cancelled, any other as a death.
batch_moved AS (
  SELECT batch_id, 0 AS succeeded, CASE WHEN reason = 1 THEN 0 ELSE 1 END AS died,
         CASE WHEN reason = 1 THEN 1 ELSE 0 END AS cancelled
  FROM moved WHERE batch_id IS NOT NULL
)
:INCLUDE batch_counted
SELECT id, queue, type, has_dependents FROM moved
