-- Fragment: the archive of succeeded jobs, shared by settle_archive.sql and
--   settle_archive_claim.sql (included where they write `:INCLUDE archive_moved`): the CTEs
--   input, moved (id, queue, … of each row moved processing → archive), ins, stats and buckets.
--   Expects $1–$6 as settle_archive.sql describes them; see its header for the locking.
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::text[],
                       $6::text[])
    AS t(id, worker_id, lease_token, duration_ms, note, result)
),
moved AS (
  DELETE FROM :SCHEMA.jobs_hot h
  USING input i
  WHERE h.id = i.id
    AND h.worker_id = i.worker_id
    AND h.lease_token = i.lease_token
    -- `+ 0` keeps the planner off the partial index of active rows: every job passes through it,
    -- and its dead entries (until vacuum) made a bitmap scan of it cost ~1 ms per settle at 30k
    -- jobs; looked up by primary key, the rows cost a probe each.
    AND h.status + 0 = :PROCESSING
  RETURNING h.id, h.queue, h.type, h.payload, h.tags, h.attempts, h.lost_attempts, h.worker_id,
            h.created_by, h.last_modified_by, h.created_at, h.started_at, h.history,
            h.concurrency_key, i.duration_ms, i.note, i.result
),
ins AS (
  INSERT INTO :SCHEMA.jobs_archive (id, queue, type, payload, tags, attempts, lost_attempts,
                                    worker_id, created_by, last_modified_by, created_at,
                                    started_at, finished_at, duration_ms, note, history, result,
                                    concurrency_key)
  SELECT id, queue, type, payload, tags, attempts, lost_attempts, worker_id, created_by,
         last_modified_by, created_at, started_at, now(), duration_ms, note, history, result,
         concurrency_key
  FROM moved
  ON CONFLICT (id) DO UPDATE SET
    queue = EXCLUDED.queue, type = EXCLUDED.type, payload = EXCLUDED.payload,
    tags = EXCLUDED.tags, attempts = EXCLUDED.attempts,
    lost_attempts = EXCLUDED.lost_attempts, worker_id = EXCLUDED.worker_id,
    created_by = EXCLUDED.created_by, last_modified_by = EXCLUDED.last_modified_by,
    created_at = EXCLUDED.created_at, started_at = EXCLUDED.started_at,
    finished_at = EXCLUDED.finished_at, duration_ms = EXCLUDED.duration_ms,
    note = EXCLUDED.note, history = EXCLUDED.history, result = EXCLUDED.result,
    concurrency_key = EXCLUDED.concurrency_key
),
stats AS (
  INSERT INTO :SCHEMA.stats_summary AS s (queue, succeeded_total, last_activity_at)
  SELECT queue, count(*), now() FROM moved GROUP BY queue ORDER BY queue
  ON CONFLICT (queue) DO UPDATE SET
    succeeded_total = s.succeeded_total + EXCLUDED.succeeded_total,
    last_activity_at = EXCLUDED.last_activity_at
),
buckets AS (
  INSERT INTO :SCHEMA.metric_buckets AS b (bucket_start, queue, outcome, failure_reason,
                                           completed_count, duration_count, total_duration_ms,
                                           max_duration_ms, updated_at)
  SELECT date_trunc('second', now()), queue, 0, -1, count(*), count(duration_ms),
         coalesce(sum(duration_ms), 0), max(duration_ms), now()
  FROM moved GROUP BY queue ORDER BY queue
  ON CONFLICT (bucket_start, queue, outcome, failure_reason) DO UPDATE SET
    completed_count = b.completed_count + EXCLUDED.completed_count,
    duration_count = b.duration_count + EXCLUDED.duration_count,
    total_duration_ms = b.total_duration_ms + EXCLUDED.total_duration_ms,
    max_duration_ms = greatest(b.max_duration_ms, EXCLUDED.max_duration_ms),
    updated_at = EXCLUDED.updated_at
)
