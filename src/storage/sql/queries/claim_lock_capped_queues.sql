-- Purpose: serialise claimers of queues that have a maxWorkers cap or jobs with a concurrency
--   limit, so caps and key limits are exact across processes. Runs first in the claim
--   transaction, before claim.sql or claim_keyed.sql. That transaction is the fall-back: both
--   statements first try alone and lock their capped or limited queues themselves (see their
--   headers); the transaction follows when such a try was stale, or when one claim wants both
--   capped queues and queues holding keyed jobs.
-- Parameters:
--   $1 queues: text[] — the capped and limited queues the claim wants
-- Locking: FOR NO KEY UPDATE on those queues rows, in name order (no deadlocks between
--   claimers); held until the claim transaction ends.
--
-- Why a separate statement: under READ COMMITTED a statement's snapshot is taken when the
-- statement starts. Were this lock taken inside claim.sql, a claimer that waited for it would
-- still count in-flight rows (fetched + processing) from a snapshot older than the previous
-- claimer's commit, and both would see the same free room. Taking the lock here, then running
-- claim.sql as the next statement, gives the claim a fresh snapshot that includes every
-- committed claim of the queue.
SELECT name
FROM :SCHEMA.queues
WHERE name = ANY($1::text[])
ORDER BY name
FOR NO KEY UPDATE
