-- Purpose: wake listeners of a queue; sent after the enqueue committed, never inside it.
-- Parameters: $1 channel (text), $2 queue name (text).
-- Locking: none (takes the notify queue lock only at the end of this autocommit statement).
SELECT pg_notify($1::text, $2::text)
