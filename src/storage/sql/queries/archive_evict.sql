-- Purpose: before an archive settle whose plain insert met an archived job with the same id (a
--   caller-given id used again, see fragments/archive_moved.sql), delete the archive rows that
--   this settle replaces: those of the ids it will move (held under the lease, fetched or
--   processing) and keep (the job type's and the queue's keep_succeeded). The archive then
--   holds the newest run of an id, as an upsert would leave it.
-- Parameters (parallel arrays, as settle_archive.sql's $1–$3 and $7):
--   $1 ids: text[] — the jobs' ids
--   $2 workerIds: text[] — the worker holding each lease
--   $3 leaseTokens: text[] — each job's lease token
--   $4 keep: boolean[] or NULL — whether each job keeps its archive row; NULL: every job keeps it
-- Locking: row locks (FOR UPDATE) on the held hot rows, kept until the transaction ends, so the
--   settle that follows in it moves exactly these rows; row locks on the deleted archive rows.
-- Returns: nothing.
WITH held AS (
  SELECT h.id
  -- Arrays behind `(SELECT …)`: read by index however many ids (fragments/archive_moved.sql).
  FROM unnest((SELECT $1::text[]), (SELECT $2::text[]), (SELECT $3::text[]),
              (SELECT $4::boolean[]))
    AS i(id, worker_id, lease_token, keep)
  JOIN :SCHEMA.jobs_hot h ON h.id = i.id
  LEFT JOIN :SCHEMA.queues q ON q.name = h.queue
  WHERE h.worker_id = i.worker_id
    AND h.lease_token = i.lease_token
    AND h.status + 0 IN (:FETCHED, :PROCESSING)
    AND coalesce(i.keep, true)
    AND coalesce(q.keep_succeeded, true)
  FOR UPDATE OF h
)
DELETE FROM :SCHEMA.jobs_archive a
USING held
WHERE a.id = held.id
