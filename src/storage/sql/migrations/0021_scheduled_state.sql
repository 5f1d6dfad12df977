-- ChokaQ schema, version 21: jobs due later wait in their own state, `scheduled` (status 3),
-- outside the fetch indexes. Their rows were pending with a later run_at, inside
-- jobs_hot_fetch_idx and jobs_hot_keyed_*_idx, and every claim whose queue had fewer due jobs
-- than its room stepped over them (three scans per queue kept that off the highest and lowest
-- priorities only). Now the fetch indexes hold due jobs alone (their predicates, status = 0, are
-- unchanged); the promoter (src/runtime/promoter.ts, promote.sql) moves scheduled rows whose
-- time came to pending, in due-time order through the small index below.
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
ALTER TABLE :SCHEMA.jobs_hot DROP CONSTRAINT IF EXISTS jobs_hot_status_check;
ALTER TABLE :SCHEMA.jobs_hot ADD CONSTRAINT jobs_hot_status_check CHECK (status IN (0, 1, 2, 3));

-- The promoter's read: scheduled rows in due-time order, so a pass stops at the first one not
-- yet due. The queue rides along for the gauges' scheduled counts (an index-only read).
CREATE INDEX IF NOT EXISTS jobs_hot_scheduled_idx
  ON :SCHEMA.jobs_hot (run_at, id) INCLUDE (queue) WHERE status = 3;

-- The operator query's creation order of waiting rows: pending and scheduled (migration 0007
-- indexed pending rows, which then held the scheduled ones too).
DROP INDEX IF EXISTS :SCHEMA.jobs_hot_pending_created_idx;
CREATE INDEX IF NOT EXISTS jobs_hot_waiting_created_idx
  ON :SCHEMA.jobs_hot (created_at, id) WHERE status IN (0, 3);

-- Pending rows due later become scheduled; the promoter brings them back when they are due.
UPDATE :SCHEMA.jobs_hot SET status = 3 WHERE status = 0 AND run_at > now();
