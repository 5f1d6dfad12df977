/**
 * The check of the `schedules` option of `new ChokaQ`: each schedule checked (its shape, checks
 * and bounds are src/schedule/definition.ts), names unique.
 */
import { ChokaQError } from '../errors.js';
import {
  checkSchedule,
  MAX_DECLARED_SCHEDULES,
  type CheckedSchedule,
  type Schedule,
} from '../schedule/definition.js';
import { checkArray } from '../util/check.js';

/**
 * Checks the declared schedules.
 * @param nowMs Now, for each payload function's trial tick.
 * @throws ChokaQError naming the field (`schedules[2].cron`); `CHOKAQ_INVALID_SCHEDULE` for a
 *   name used twice.
 */
export function resolveSchedules(
  value: readonly Schedule[] | undefined,
  maxPayloadBytes: number,
  nowMs: number,
): readonly CheckedSchedule[] {
  if (value === undefined) return [];
  const list = checkArray(value, 'schedules', MAX_DECLARED_SCHEDULES, 'CHOKAQ_INVALID_CONFIG');
  const seen = new Set<string>();
  return list.map((item, i) => {
    const checked = checkSchedule(item as Schedule, `schedules[${i}]`, maxPayloadBytes, nowMs);
    if (seen.has(checked.spec.name)) {
      throw new ChokaQError(
        'CHOKAQ_INVALID_SCHEDULE',
        `schedules[${i}].name ${JSON.stringify(checked.spec.name)} is used by an earlier schedule`,
        { field: `schedules[${i}].name` },
      );
    }
    seen.add(checked.spec.name);
    return checked;
  });
}
