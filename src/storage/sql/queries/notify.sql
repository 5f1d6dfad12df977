-- Purpose: wake listeners of a queue; sent after the enqueue committed, never inside it. Also
--   the cluster events' broadcast (another channel).
-- Parameters: $1 channel (text), $2 queue name or message (text).
-- Locking: none (takes the notify queue lock only at the end of this autocommit statement).
-- Commits with synchronous_commit off for its own transaction: a NOTIFY gives its transaction
-- a transaction id, so a synchronous commit would wait for a WAL flush of a commit record that
-- guards no data. PostgreSQL delivers the notification at commit either way, and notifications
-- never outlive a server crash.
SELECT pg_notify($1::text, $2::text), set_config('synchronous_commit', 'off', true)
