-- Fragment: the batch counters of the members an archive moved, shared by settle_archive.sql and
--   settle_archive_claim.sql (included where they write `:INCLUDE archive_batched`, right after
--   fragments/archive_moved.sql, whose `scope` then says `batches`): each member counts as
--   succeeded in its batch's row, and the callbacks that makes due fire (fragments/batch_counted.sql).
, batch_moved AS (
  SELECT batch_id, 1 AS succeeded, 0 AS died, 0 AS cancelled FROM moved WHERE batch_id IS NOT NULL
)
:INCLUDE batch_counted
