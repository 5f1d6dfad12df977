/**
 * IANA time zones through `Intl`: whether a name is known, and the wall-clock reading of an
 * instant in a zone — what the daylight-saving rule of `ticks.ts` compares.
 */

/** One formatter per zone, made on first use. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, format);
  }
  return format;
}

/** Whether `zone` is an IANA time zone name this runtime knows (`UTC` included). */
export function isKnownZone(zone: string): boolean {
  try {
    formatter(zone);
    return true;
  } catch {
    return false;
  }
}

/**
 * The wall-clock reading of `instant` in `zone` to the second, as `YYYY-MM-DD hh:mm:ss`
 * (milliseconds dropped: cron ticks fall on whole seconds).
 */
export function wallClock(instant: Date, zone: string): string {
  const parts: Record<string, string> = {};
  for (const part of formatter(zone).formatToParts(instant)) parts[part.type] = part.value;
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
}

/** The offset of `zone` from UTC at `instant`, in ms (Berlin in winter: 3,600,000). */
export function zoneOffsetMs(instant: Date, zone: string): number {
  const wall = wallClock(instant, zone);
  const asUtc = Date.parse(`${wall.replace(' ', 'T')}Z`);
  return asUtc - Math.floor(instant.getTime() / 1000) * 1000;
}
