-- Purpose: reclaim dead tuples of the hot table where no autovacuum runs (embedded PGlite).
-- Parameters: none. Must run outside a transaction.
-- Locking: SHARE UPDATE EXCLUSIVE on jobs_hot (does not block reads or writes).
VACUUM :SCHEMA.jobs_hot
