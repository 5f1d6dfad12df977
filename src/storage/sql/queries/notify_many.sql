-- Purpose: wake listeners of several queues from inside a caller's transaction (enqueueWithin);
--   PostgreSQL delivers the notifications only if that transaction commits.
-- Parameters:
--   $1 channel: text — the channel
--   $2 queues: text[] — the queue names
-- Locking: none until the caller commits (then the server-wide notify queue lock).
SELECT pg_notify($1::text, q) FROM unnest($2::text[]) AS t(q)
