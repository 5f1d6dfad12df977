/** A time as the inspector shows it: absolute (local, to the second) beside relative. */
import { ago, stamp } from '../lib/format.js';

/** `2026-12-03 10:55:01 (5 s ago)`, with the ISO time in `datetime`. */
export function When({ value }: { value: string | Date | null | undefined }) {
  if (value === null || value === undefined) return <span>—</span>;
  return (
    <span class="when">
      <time dateTime={new Date(value).toISOString()}>{stamp(value)}</time>{' '}
      <span class="muted">({ago(value)})</span>
    </span>
  );
}
