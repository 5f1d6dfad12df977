-- ChokaQ schema, version 3: idempotency claims behind the idempotency middleware (SPEC F98, §4.8).
-- One row per key: in progress (state 0) while its owner job runs, completed (state 1) afterwards
-- for the result TTL. A row whose expires_at has passed behaves as absent and is taken over by
-- the next claim; a completed row with a NULL expires_at is kept forever.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.

CREATE TABLE IF NOT EXISTS :SCHEMA.idempotency_claims (
  key varchar(255) COLLATE "C" PRIMARY KEY,
  -- 0 in progress, 1 completed
  state smallint NOT NULL CHECK (state IN (0, 1)),
  -- The job that claimed the key (and completed it).
  job_id varchar(50) NOT NULL,
  -- NULL = never expires (completed with no result TTL).
  expires_at timestamptz,
  -- When the key was claimed or, once completed, when it was completed.
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Purge of expired rows.
CREATE INDEX IF NOT EXISTS idempotency_claims_expires_idx
  ON :SCHEMA.idempotency_claims (expires_at) WHERE expires_at IS NOT NULL;
