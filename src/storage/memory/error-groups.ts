/**
 * DLQ error groups of the memory provider, from its maintained summary (`Tables.groups`), as the
 * SQL statement `error_groups.sql` returns them.
 *
 * @internal
 */
import type { ErrorGroup } from '../model.js';
import type { ErrorGroupFilter, GroupHour } from '../operator-store.js';
import type { Tables } from './tables.js';

/** Groups with jobs in the DLQ, largest first (then by fingerprint), at most `filter.limit`. */
export function listErrorGroups(tables: Tables, filter: ErrorGroupFilter): ErrorGroup[] {
  const byFingerprint = new Map<string, ErrorGroup>();
  for (const row of tables.groups.values()) {
    if (row.count === 0) continue;
    if (filter.queues && !filter.queues.includes(row.queue)) continue;
    if (filter.types && !filter.types.includes(row.type)) continue;
    const group = byFingerprint.get(row.fingerprint);
    if (group === undefined) {
      byFingerprint.set(row.fingerprint, {
        fingerprint: row.fingerprint,
        errorClass: row.errorClass,
        message: row.message,
        frame: row.frame,
        count: row.count,
        firstSeen: new Date(row.firstSeen),
        lastSeen: new Date(row.lastSeen),
        queues: [row.queue],
        types: [row.type],
        sampleId: null,
      });
      continue;
    }
    group.count += row.count;
    if (row.firstSeen < group.firstSeen) group.firstSeen = new Date(row.firstSeen);
    if (row.lastSeen > group.lastSeen) group.lastSeen = new Date(row.lastSeen);
    if (!group.queues.includes(row.queue)) group.queues.push(row.queue);
    if (!group.types.includes(row.type)) group.types.push(row.type);
  }
  const groups = [...byFingerprint.values()]
    .sort((a, b) => b.count - a.count || (a.fingerprint < b.fingerprint ? -1 : 1))
    .slice(0, filter.limit);
  for (const group of groups) {
    group.queues.sort();
    group.types.sort();
    group.sampleId = newestDead(tables, group.fingerprint, filter);
  }
  return groups;
}

/** Id of the most recent DLQ row of a group within the filter's queues and types. */
function newestDead(tables: Tables, fingerprint: string, filter: ErrorGroupFilter): string | null {
  let newest: { id: string; at: number } | null = null;
  for (const row of tables.dead.values()) {
    if (row.fingerprint !== fingerprint) continue;
    if (filter.queues && !filter.queues.includes(row.queue)) continue;
    if (filter.types && !filter.types.includes(row.type)) continue;
    const at = row.failedAt.getTime();
    if (newest === null || at > newest.at) newest = { id: row.id, at };
  }
  return newest?.id ?? null;
}

/** Dead jobs per hour of the groups `fingerprints` from `since` on, as error_group_hours.sql. */
export function errorGroupHours(
  tables: Tables,
  fingerprints: readonly string[],
  since: Date,
): GroupHour[] {
  const out: GroupHour[] = [];
  for (const fingerprint of [...new Set(fingerprints)].sort()) {
    const hours = tables.groupHours.get(fingerprint);
    if (hours === undefined) continue;
    for (const [start, count] of [...hours].sort(([a], [b]) => a - b)) {
      if (start >= since.getTime()) out.push({ fingerprint, hourStart: new Date(start), count });
    }
  }
  return out;
}
