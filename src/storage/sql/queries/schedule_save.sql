-- Purpose: create a schedule (cursor and anchor: now) or replace an existing one's definition,
--   keeping its pause flag, cursor, anchor and ticks.
-- Parameters:
--   $1 name: text — the schedule's name
--   $2 definition: text — its definition (JSON text)
--   $3 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: the schedule row (one upsert).
-- Returns: the row.
INSERT INTO :SCHEMA.schedules AS s
  (name, definition, paused, cursor_at, anchor_at, created_at, updated_at)
VALUES ($1::text, $2::jsonb, false, :NOW, :NOW, :NOW, :NOW)
ON CONFLICT (name) DO UPDATE
  SET definition = EXCLUDED.definition, updated_at = EXCLUDED.updated_at
RETURNING s.name, s.definition::text AS definition, s.paused, s.cursor_at, s.anchor_at,
  s.created_at, s.updated_at
