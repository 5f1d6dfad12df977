/**
 * libpq's multi-host URLs (`postgres://user@h1:5432,h2:5433/db?target_session_attrs=read-write`)
 * taken apart and checked, without a driver: what `postgres()` checks among its options. The
 * connections to them are `hosts.ts`'s.
 */
import { invalid } from '../../util/check.js';

/** One host of a multi-host URL. */
export interface HostPort {
  /** Name or address (an IPv6 address without its brackets). */
  host: string;
  port: number;
}

/** A multi-host URL taken apart. */
export interface MultiHostUrl {
  hosts: readonly HostPort[];
  /** The URL with the first host only and without `target_session_attrs`: the pool's base. */
  base: string;
}

/** The `target_session_attrs` values a multi-host URL may carry: ChokaQ writes. */
const WRITABLE_ATTRS = new Set(['read-write', 'primary']);

/** `scheme://` `userinfo@` `hosts` `/path?query#…`. */
const URL_PARTS = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/i;

/**
 * Takes apart a connection string that names several hosts (a comma in its host part);
 * `null` for any other string (left to `pg`).
 * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` naming `field` when a host or port is empty or
 *   malformed, or `target_session_attrs` asks for anything but a writable session
 *   (`read-write`, `primary`; absent means `read-write`).
 */
export function parseMultiHostUrl(connectionString: string, field: string): MultiHostUrl | null {
  const parts = URL_PARTS.exec(connectionString.trim());
  if (parts === null || !(parts[3] ?? '').includes(',')) return null;
  const [, scheme = '', userinfo = '', hostPart = '', rest = ''] = parts;
  const hosts = hostPart.split(',').map((entry) => hostPortOf(entry, field, connectionString));
  let base: URL;
  try {
    base = new URL(`${scheme}${userinfo}${hostPart.split(',')[0] ?? ''}${rest}`);
  } catch {
    throw invalid('CHOKAQ_INVALID_CONFIG', field, 'a PostgreSQL URL', connectionString);
  }
  const attrs = base.searchParams.get('target_session_attrs');
  if (attrs !== null && !WRITABLE_ATTRS.has(attrs)) {
    throw invalid(
      'CHOKAQ_INVALID_CONFIG',
      `${field}: target_session_attrs`,
      "'read-write' or 'primary' (ChokaQ needs a writable session)",
      attrs,
    );
  }
  base.searchParams.delete('target_session_attrs');
  return { hosts, base: base.toString() };
}

/** One `host[:port]` or `[v6]:port` entry of a multi-host URL. */
function hostPortOf(entry: string, field: string, url: string): HostPort {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(entry);
  const host = match?.[1] ?? match?.[2];
  const port = match?.[3] === undefined ? 5432 : Number(match[3]);
  if (host === undefined || host === '' || port < 1 || port > 65535) {
    throw invalid(
      'CHOKAQ_INVALID_CONFIG',
      field,
      `a PostgreSQL URL whose hosts are host:port entries (not ${JSON.stringify(entry)})`,
      url,
    );
  }
  return { host: decodeURIComponent(host), port };
}
