-- Purpose: move DLQ jobs back to pending in one statement: attempts and lost_attempts 0, no
--   idempotency key, no cancel request, due now, no worker; payload/tags/priority from the
--   options; lifetime counters unchanged; changed_at (the hot row's version) now. The dead run (from the DLQ row's columns) and the
--   resurrect action with its actor are appended to the bounded history (last 20 entries), and
--   the rows leave their error groups. Ids that are also in the hot table (re-enqueued
--   meanwhile) are left in the DLQ. A resurrected job resumes its workflow (docs/workflows.md):
--   the jobs that died as DependencyFailed (code 11) waiting for it, and those that died so
--   waiting for them, come back too, awaiting (the resolver decides them again), and a job others
--   depend on keeps has_dependents. A member of a batch keeps its batch, which counts it as dead
--   (or cancelled) no more (fragments/batch_counted.sql).
-- Parameters:
--   $1 ids: text[] — the jobs' ids
--   $2 actor: text — who resurrects them
--   $3 payloads: (text or NULL)[] — parallel to $1; NULL elements keep the job's
--   $4 replaceTags: boolean — whether to replace the tags
--   $5 tags: text or NULL — the new tags
--   $6 priority: int — the priority
--   $7 versions: (bigint or NULL)[] — parallel to $1: a job moves only while its version
--     (edited_at, else failed_at, in microseconds since the epoch) equals the given one (a bulk
--     action's snapshot); NULL elements skip the check
--   $8 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: row locks on the deleted DLQ rows; a concurrent resurrect of the same id waits and
--   then finds the row gone, so each id moves once.
-- Returns: id of each resurrected job given (not of the jobs that came back with them).
-- Row: id text
WITH RECURSIVE input AS (
  -- Arrays behind `(SELECT …)`: read by index however many ids (fragments/archive_moved.sql).
  SELECT * FROM unnest((SELECT $1::text[]), (SELECT $3::text[]), (SELECT $7::bigint[]))
    AS t(id, payload, version)
),
given AS (
  DELETE FROM :SCHEMA.jobs_dlq d
  USING input i
  WHERE d.id = i.id
    AND (i.version IS NULL OR (extract(epoch FROM coalesce(d.edited_at, d.failed_at)) * 1000000)::bigint = i.version)
    AND NOT EXISTS (SELECT 1 FROM :SCHEMA.jobs_hot h WHERE h.id = d.id)
  RETURNING d.*, i.payload AS new_payload, false AS revived
),
-- The jobs that died waiting for a resurrected one, up their chains (the DLQ rows the statement
-- reads are those of its snapshot, so `given` is seen through its ids).
failed_dependents(id) AS (
  SELECT e.job_id
  FROM :SCHEMA.job_dependencies e
  JOIN :SCHEMA.jobs_dlq d ON d.id = e.job_id AND d.failure_reason = 11
  WHERE e.depends_on IN (SELECT id FROM given)
  UNION
  SELECT e.job_id
  FROM failed_dependents f
  JOIN :SCHEMA.job_dependencies e ON e.depends_on = f.id
  JOIN :SCHEMA.jobs_dlq d ON d.id = e.job_id AND d.failure_reason = 11
),
revived AS (
  DELETE FROM :SCHEMA.jobs_dlq d
  WHERE d.id IN (SELECT id FROM failed_dependents)
    AND d.id NOT IN (SELECT id FROM given)
    AND NOT EXISTS (SELECT 1 FROM :SCHEMA.jobs_hot h WHERE h.id = d.id)
  RETURNING d.*, NULL::text AS new_payload, true AS revived
),
moved AS (
  SELECT * FROM given UNION ALL SELECT * FROM revived
),
ungrouped AS (
  UPDATE :SCHEMA.dlq_error_groups g
  SET dead_count = greatest(g.dead_count - m.n, 0)
  FROM (
    SELECT fingerprint, queue, type, count(*) AS n FROM moved
    GROUP BY fingerprint, queue, type ORDER BY fingerprint, queue, type
  ) m
  WHERE g.fingerprint = m.fingerprint AND g.queue = m.queue AND g.type = m.type
),
ensure_queues AS (
  INSERT INTO :SCHEMA.queues (name, updated_at)
  SELECT DISTINCT queue, :NOW FROM moved ORDER BY 1
  ON CONFLICT (name) DO NOTHING
),
ins AS (
  INSERT INTO :SCHEMA.jobs_hot (id, queue, type, payload, tags, idempotency_key, priority, status,
                                attempts, lost_attempts, worker_id, lease_token, run_at,
                                created_at, cancel_requested_at, cancel_requested_by,
                                started_at, heartbeat_at, updated_at, created_by,
                                last_modified_by, last_error, history, changed_at,
                                concurrency_key, concurrency_limit, has_dependents, batch_id)
  SELECT id, queue, type, coalesce(new_payload, payload),
         CASE WHEN $4::boolean AND NOT revived THEN $5::text ELSE tags END,
         NULL, $6::int, CASE WHEN revived THEN :AWAITING ELSE :PENDING END, 0, 0, NULL, NULL,
         :NOW, created_at, NULL, NULL, NULL, NULL, :NOW,
         created_by,
         $2::text, error_details,
         jsonb_path_query_array(coalesce(history, '[]'::jsonb) || jsonb_build_array(
           jsonb_build_object('kind', 'run', 'attempt', attempts, 'startedAt', started_at,
                              'endedAt', failed_at, 'workerId', worker_id, 'outcome', 'dead',
                              'reason', failure_reason, 'error', left(error_details, :MAX_HISTORY_ERROR)),
           jsonb_build_object('kind', 'action', 'action', 'resurrect', 'actor', $2::text,
                              'at', :NOW)),
           '$[last - :MAX_HISTORY + 1 to last]'),
         :NOW, concurrency_key, concurrency_limit,
         EXISTS (SELECT 1 FROM :SCHEMA.job_dependencies e WHERE e.depends_on = moved.id) OR NULL,
         batch_id
  FROM moved
  RETURNING id
),
-- A member of a batch is counted back: one death (or cancel) fewer.
batch_moved AS (
  SELECT batch_id, 0 AS succeeded, CASE WHEN failure_reason = 1 THEN 0 ELSE -1 END AS died,
         CASE WHEN failure_reason = 1 THEN -1 ELSE 0 END AS cancelled
  FROM moved WHERE batch_id IS NOT NULL
)
:INCLUDE batch_counted
SELECT id FROM ins WHERE id IN (SELECT id FROM given)
