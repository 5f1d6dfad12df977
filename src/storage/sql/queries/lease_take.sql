-- Purpose: take or renew the lease of a duty: granted when nobody holds it, the caller holds it,
--   or the holder's lease expired.
-- Parameters:
--   $1 name: text — the duty's name
--   $2 holder: text — who takes it
--   $3 ttlMs: bigint — the lease's length in ms
--   $4 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: the lease row (one upsert).
-- Returns: one row when granted, none when another holder has it.
INSERT INTO :SCHEMA.leases AS l (name, holder, expires_at)
VALUES ($1::text, $2::text, :NOW + $3::bigint * interval '1 millisecond')
ON CONFLICT (name) DO UPDATE
  SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
  WHERE l.holder = EXCLUDED.holder OR l.expires_at < :NOW
RETURNING holder
