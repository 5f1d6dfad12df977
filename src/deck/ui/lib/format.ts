/** How numbers, times and durations read in The Deck. */

const number = new Intl.NumberFormat('en-US');

/** 12,345 */
export function count(n: number): string {
  return number.format(n);
}

/** A duration in ms as people read it: 850 ms, 12.3 s, 4 min, 2.5 h. */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** A time relative to now: 5 s ago, in 3 min. */
export function ago(value: string | Date | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const ms = Date.now() - new Date(value).getTime();
  return ms >= 0 ? `${duration(ms)} ago` : `in ${duration(-ms)}`;
}

/** An exact local time for titles and the inspector. */
export function exact(value: string | Date | null | undefined): string {
  if (value === null || value === undefined) return '—';
  return new Date(value).toLocaleString();
}

/** A percentage of a ratio, or — */
export function percent(ratio: number | null): string {
  return ratio === null ? '—' : `${(ratio * 100).toFixed(ratio < 0.1 ? 1 : 0)} %`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A local time to the second, sortable and unambiguous: 2026-12-03 10:55:01. */
export function stamp(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined) return '—';
  const d = new Date(value);
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  );
}
