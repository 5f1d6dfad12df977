-- Fragment: the archive of succeeded jobs, shared by settle_archive.sql,
--   settle_archive_plain.sql and settle_archive_claim.sql (included where they write
--   `:INCLUDE archive_moved`, after a first CTE `scope` of one row whose `batches` says whether
--   the statement counts batch members): the CTEs input, moved (id, queue, … of each row moved
--   processing → archive), ins, stats and buckets. Expects $1–$7 as settle_archive.sql describes
--   them; see its header for the locking. A statement that counts batch members includes
--   fragments/archive_batched.sql after this; one that does not moves no member.
, input AS (
  -- Each array behind `(SELECT …)`: the planner then cannot count the ids and guesses ten, so it
  -- reads jobs_hot by primary key, one probe per id. Counting a round of a few hundred ids against
  -- a backlog of a few thousand jobs, it chose a hash join with a sequential scan instead (~7 ms
  -- at 20,000 rows, more as the backlog grows; test/pg/settle-plans.test.ts).
  SELECT * FROM unnest((SELECT $1::text[]), (SELECT $2::text[]), (SELECT $3::text[]),
                       (SELECT $4::float8[]), (SELECT $5::text[]),
                       (SELECT $6::text[]), (SELECT $7::boolean[]))
    AS t(id, worker_id, lease_token, duration_ms, note, result, keep)
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
    -- A fetched row ran under a start not yet recorded (the worker records starts with its next
    -- settle round): its run is counted here, started its duration ago.
    AND h.status + 0 IN (:FETCHED, :PROCESSING)
    -- A batch member moves only where its batch's counters change with it.
    AND (h.batch_id IS NULL OR (SELECT batches FROM scope))
  RETURNING h.id, h.queue, h.type, h.payload, h.tags,
            h.attempts + CASE WHEN h.status = :FETCHED THEN 1 ELSE 0 END AS attempts,
            h.lost_attempts, h.worker_id, h.created_by, h.last_modified_by, h.created_at,
            CASE WHEN h.status = :FETCHED
                 THEN :NOW - i.duration_ms * interval '1 millisecond'
                 ELSE h.started_at END AS started_at,
            h.history, h.concurrency_key, i.duration_ms, i.note, i.result, i.keep,
            h.has_dependents, h.batch_id
),
ins AS (
  INSERT INTO :SCHEMA.jobs_archive (id, queue, type, payload, tags, attempts, lost_attempts,
                                    worker_id, created_by, last_modified_by, created_at,
                                    started_at, finished_at, duration_ms, note, history, result,
                                    concurrency_key, batch_id)
  SELECT m.id, m.queue, m.type, m.payload, m.tags, m.attempts, m.lost_attempts, m.worker_id,
         m.created_by, m.last_modified_by, m.created_at, m.started_at, :NOW, m.duration_ms,
         m.note, m.history, m.result, m.concurrency_key, m.batch_id
  FROM moved m
  -- A job type or queue that keeps no succeeded rows: counted below, not archived. One join
  -- with the few queues, not a lookup per moved row. A job others depend on is archived all the
  -- same: its dependents read its success (and result) there.
  LEFT JOIN :SCHEMA.queues q ON q.name = m.queue
  WHERE (coalesce(m.keep, true) AND coalesce(q.keep_succeeded, true)) OR m.has_dependents
  -- No ON CONFLICT: a plain insert costs a WAL record and a unique-index probe less per job than
  -- an upsert. A job id that an archived job had is rare (ids are UUIDv7 unless the caller gives
  -- one): the store then deletes those archive rows first (archive_evict.sql) and runs this again.
),
stats AS (
  INSERT INTO :SCHEMA.stats_summary AS s (queue, shard, succeeded_total, last_activity_at)
  SELECT queue, :SCHEMA.counter_shard(), count(*), :NOW FROM moved GROUP BY queue ORDER BY queue
  ON CONFLICT (queue, shard) DO UPDATE SET
    succeeded_total = s.succeeded_total + EXCLUDED.succeeded_total,
    last_activity_at = EXCLUDED.last_activity_at
),
buckets AS (
  INSERT INTO :SCHEMA.metric_buckets AS b (bucket_start, queue, outcome, failure_reason, shard,
                                           completed_count, duration_count, total_duration_ms,
                                           max_duration_ms, updated_at)
  SELECT date_trunc('second', :NOW), queue, 0, -1, :SCHEMA.counter_shard(), count(*),
         count(duration_ms), coalesce(sum(duration_ms), 0), max(duration_ms), :NOW
  FROM moved GROUP BY queue ORDER BY queue
  ON CONFLICT (bucket_start, queue, outcome, failure_reason, shard) DO UPDATE SET
    completed_count = b.completed_count + EXCLUDED.completed_count,
    duration_count = b.duration_count + EXCLUDED.duration_count,
    total_duration_ms = b.total_duration_ms + EXCLUDED.total_duration_ms,
    max_duration_ms = greatest(b.max_duration_ms, EXCLUDED.max_duration_ms),
    updated_at = EXCLUDED.updated_at
)
