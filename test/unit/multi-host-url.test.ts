/**
 * libpq's multi-host URLs, taken apart before anything connects: the hosts in order (default
 * port 5432, IPv6 in brackets), and the pool's base URL with the first host and without
 * `target_session_attrs`. A URL of one host is left to `pg`.
 */
import { describe, expect, it } from 'vitest';
import { parseMultiHostUrl } from '../../src/storage/postgres/multi-host-url.js';
import { postgres } from '../../src/storage/postgres/index.js';

describe('multi-host URLs', () => {
  it('lists the hosts in order and keeps the rest of the URL for the pool', () => {
    const parsed = parseMultiHostUrl(
      'postgres://app:s%40cret@db1:5432,[::1]:5433,db3/jobs?target_session_attrs=read-write&sslmode=disable',
      'f',
    );
    expect(parsed?.hosts).toEqual([
      { host: 'db1', port: 5432 },
      { host: '::1', port: 5433 },
      { host: 'db3', port: 5432 },
    ]);
    const base = new URL(parsed?.base ?? '');
    expect(base.host).toBe('db1:5432');
    expect(base.username).toBe('app');
    expect(base.password).toBe('s%40cret');
    expect(base.pathname).toBe('/jobs');
    expect([...base.searchParams.keys()]).toEqual(['sslmode']);
  });

  it('leaves a URL of one host to pg', () => {
    expect(parseMultiHostUrl('postgres://u@db:5432/jobs', 'f')).toBeNull();
  });

  it('is accepted by postgres() when it asks for a writable session', () => {
    for (const attrs of ['', '?target_session_attrs=read-write', '?target_session_attrs=primary']) {
      expect(() =>
        postgres({ connectionString: `postgres://u@h1:1,h2:2/db${attrs}` }),
      ).not.toThrow();
    }
  });
});
