-- ChokaQ schema, version 10: the worker processes that are alive, for `chokaq status` and The
-- Deck. Each started worker writes its row every few seconds and deletes it when it stops; rows
-- not seen for a day are deleted by the next worker that writes its own.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
CREATE TABLE IF NOT EXISTS :SCHEMA.workers (
  id varchar(100) COLLATE "C" PRIMARY KEY,
  host varchar(255) NOT NULL,
  pid integer NOT NULL,
  started_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  -- concurrency, running, queues served, circuit states, version
  info jsonb NOT NULL
);
