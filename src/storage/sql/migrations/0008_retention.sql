-- ChokaQ schema, version 8: leases, so one process at a time leads a background duty (retention).
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.

-- A duty's current holder and until when it holds it; another process takes it over only once
-- it expired (the holder renews it on every pass).
CREATE TABLE IF NOT EXISTS :SCHEMA.leases (
  name varchar(100) COLLATE "C" PRIMARY KEY,
  holder varchar(100) NOT NULL,
  expires_at timestamptz NOT NULL
);
