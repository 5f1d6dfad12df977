-- Purpose: write a previewed bulk action and its snapshot (job ids with their versions).
-- Parameters:
--   $1 id: text — the bulk action's id
--   $2 action: text — its kind
--   $3 target: text — its target (jsonb text)
--   $4 edit: text or NULL — its edit (jsonb text)
--   $5 tokenHash: text — the hash of its confirmation token
--   $6 validForMs: float8 — how long the preview stays valid, in ms
--   $7 jobIds: text[] — the items' job ids
--   $8 versions: bigint[] — each item's version, parallel to $7
--   $9 now: timestamptz or NULL — the store's clock; NULL reads the database's
-- Locking: inserts only.
-- Returns: nothing.
WITH action AS (
  INSERT INTO :SCHEMA.bulk_actions (id, action, target, edit, token_hash, status, total,
                                    created_at, expires_at)
  VALUES ($1::text, $2::text, $3::jsonb, $4::jsonb, $5::text, 'previewed',
          cardinality($7::text[]), :NOW, :NOW + $6::float8 * interval '1 millisecond')
)
INSERT INTO :SCHEMA.bulk_action_items (action_id, job_id, version)
SELECT $1::text, i.job_id, i.version FROM unnest($7::text[], $8::bigint[]) AS i(job_id, version)
