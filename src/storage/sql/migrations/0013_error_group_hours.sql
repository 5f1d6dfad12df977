-- ChokaQ schema, version 13: the trend of each DLQ error group for the failure inbox, as dead
-- jobs per hour. Counted by the statement that moves rows into the DLQ (move_to_dlq.sql), like
-- dlq_error_groups, so the trend is read from at most 24 rows per group, never from the DLQ.
-- Arrivals are never taken back (a resurrected or purged job still failed in its hour); the
-- same statement deletes a group's hours past two days whenever it counts a new one.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
CREATE TABLE IF NOT EXISTS :SCHEMA.dlq_error_group_hours (
  fingerprint varchar(64) COLLATE "C" NOT NULL,
  hour_start timestamptz NOT NULL,
  dead_count bigint NOT NULL CHECK (dead_count > 0),
  PRIMARY KEY (fingerprint, hour_start)
);
