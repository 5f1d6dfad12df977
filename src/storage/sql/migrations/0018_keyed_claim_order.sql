-- ChokaQ schema, version 18: pending jobs with a concurrency key in claim order, whatever their
-- key. A keyed claim first walks the front of this index (claim_keyed.sql, "the walk"): when the
-- room-th job it picks there comes, in claim order, before every job it did not read, the walk
-- decides the claim without finding every waiting key's line head (one probe per key through
-- jobs_hot_keyed_fetch_idx, which stays for the claims the walk cannot decide). Only pending
-- keyed rows enter it: jobs without a key write no entry; keyed jobs write one more when they
-- become pending (enqueue, retry, release, rescue, resurrect).
-- `:SCHEMA` is replaced by the quoted, validated schema name before this script runs.
CREATE INDEX IF NOT EXISTS jobs_hot_keyed_order_idx
  ON :SCHEMA.jobs_hot (queue, priority DESC, run_at, id)
  WHERE status = 0 AND concurrency_key IS NOT NULL;
