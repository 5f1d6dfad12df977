-- Purpose: batches by id, or the batch of a job: the one it is a member of (its row in the hot
--   table, the archive or the DLQ carries the batch id) or whose callback it is.
-- Parameters:
--   $1 ids: text[] or NULL — the batches; NULL: look up $2 instead
--   $2 jobId: text or NULL — a job whose batch to read; NULL: read $1
-- Locking: none.
-- Row: id text, total int, succeeded int, died int, cancelled int, on_success_id text or NULL,
--   on_complete_id text or NULL, on_death_id text or NULL,
--   success_fired_at timestamptz or NULL, complete_fired_at timestamptz or NULL,
--   death_fired_at timestamptz or NULL, created_at timestamptz
SELECT b.id, b.total, b.succeeded, b.died, b.cancelled, b.on_success_id, b.on_complete_id,
       b.on_death_id, b.success_fired_at, b.complete_fired_at, b.death_fired_at, b.created_at
FROM :SCHEMA.batches b
WHERE ($1::text[] IS NOT NULL AND b.id = ANY($1::text[]))
   OR ($2::text IS NOT NULL AND b.id IN (
         SELECT batch_id FROM :SCHEMA.jobs_hot WHERE id = $2::text
         UNION ALL SELECT batch_id FROM :SCHEMA.jobs_archive WHERE id = $2::text
         UNION ALL SELECT batch_id FROM :SCHEMA.jobs_dlq WHERE id = $2::text))
   OR ($2::text IS NOT NULL AND (b.on_success_id = $2::text OR b.on_complete_id = $2::text
                                 OR b.on_death_id = $2::text))
ORDER BY b.id
