-- Purpose: claim due pending jobs: pending → fetched with the worker id and one lease token for
--   the whole batch, changed_at stamped (the row's version for bulk snapshots). Rows carrying a cancel request are never claimed (rescue moves them to
--   the DLQ), nor rows of job types the worker cannot run. Per eligible queue (not paused,
--   active, in the list if given) take up to least(limit, room) rows, room = max_workers −
--   (fetched + processing) or limit when uncapped; then keep the best `limit` rows overall by
--   priority desc, run_at, id — across queues, capped or not.
-- Parameters: $1 worker id (text), $2 limit (int), $3 queue names (text[]) or NULL for all,
--   $4 lease token (text), $5 in the locked transaction (boolean): false claims from queues
--   without a maxWorkers cap and from the capped queues of $8 this statement finds fresh (below);
--   true from every eligible queue; $6 start count (int): the first $6 rows in
--   claim order are started at once (processing, attempts + 1, started_at and heartbeat_at
--   stamped) because the worker has a free slot for each; the rest are fetched; $7 job types the
--   worker can run, lower-case (text[]), or NULL for every type (pipe mode). The type test is a
--   filter on the fetch index scan: rows of other types are stepped over, never locked. So are
--   rows with a concurrency key: only claim_keyed.sql claims them (the claim store sends that
--   statement instead of this one when a wanted queue holds pending keyed jobs); $8 the capped
--   queues the claim wants (text[]) or NULL.
-- Locking: FOR UPDATE SKIP LOCKED on candidate rows (never hands a row to two claimers).
--   The transaction commits with synchronous_commit off (see the final SELECT).
--   Caps are exact across processes: the rows of the $8 queues are locked (FOR NO KEY UPDATE, in
--   name order) inside this statement, so claimers of a capped queue take turns, each holding
--   the lock for the rest of its statement only (no round trip to the client while held). The
--   lock returns the row's latest version; when its claim_seq equals the one this statement's
--   snapshot shows, no claim of the queue committed since the snapshot, the fetched + processing
--   rows counted are exact (only claims add to them) and the queue is claimed ("fresh").
--   Otherwise it is left alone and `stale` tells the store to claim again from a fresh snapshot.
--   A claim that takes jobs of a $8 queue adds 1 to its claim_seq. Runs alone as one autocommit
--   statement (the fast path: one round trip), or with $5 true in a transaction right after
--   claim_lock_capped_queues (the store's fall-back; its snapshot is always fresh there).
-- Returns: id, queue, type, payload, status, attempts, worker_id, lease_token, trace_parent,
--   run_at and created_at (epoch ms) of the claimed rows, in claim order, and stale (a $8 queue
--   was not fresh); one row with a NULL id when nothing was claimed.
WITH queue_locks AS MATERIALIZED (
  SELECT q.name, q.claim_seq
  FROM :SCHEMA.queues q
  WHERE q.name = ANY(coalesce($8::text[], '{}'))
  ORDER BY q.name
  FOR NO KEY UPDATE
),
eligible AS (
  SELECT q.name,
         CASE
           WHEN q.max_workers IS NULL THEN $2::int
           WHEN NOT ($5::boolean OR coalesce(l.claim_seq = q.claim_seq, false)) THEN 0
           ELSE least($2::int, greatest(q.max_workers - (
             SELECT count(*)::int
             FROM :SCHEMA.jobs_hot f
             WHERE f.queue = q.name AND f.status IN (:FETCHED, :PROCESSING)
           ), 0))
         END AS room,
         l.name IS NOT NULL AND l.claim_seq <> q.claim_seq AS stale
  FROM :SCHEMA.queues q
  LEFT JOIN queue_locks l ON l.name = q.name
  WHERE NOT q.is_paused
    AND q.is_active
    AND ($3::text[] IS NULL OR q.name = ANY($3::text[]))
),
picked AS (
  SELECT c.id, c.priority, c.run_at, e.name AS queue,
         row_number() OVER (ORDER BY c.priority DESC, c.run_at, c.id) AS rank
  FROM eligible e
  CROSS JOIN LATERAL (
    SELECT h.id, h.priority, h.run_at
    FROM :SCHEMA.jobs_hot h
    WHERE h.queue = e.name AND h.status = :PENDING AND h.run_at <= now()
      AND h.cancel_requested_at IS NULL AND h.concurrency_key IS NULL
      AND ($7::text[] IS NULL OR lower(h.type) = ANY($7::text[]))
    ORDER BY h.priority DESC, h.run_at, h.id
    LIMIT e.room
    FOR UPDATE SKIP LOCKED
  ) c
  WHERE e.room > 0
  ORDER BY c.priority DESC, c.run_at, c.id
  LIMIT $2::int
),
bumped AS (
  UPDATE :SCHEMA.queues q
  SET claim_seq = q.claim_seq + 1
  WHERE q.name IN (SELECT p.queue FROM picked p)
    AND q.name = ANY(coalesce($8::text[], '{}'))
),
claim_flags AS (
  SELECT EXISTS (SELECT 1 FROM eligible e WHERE e.stale) AS stale
),
:INCLUDE claim_finish
