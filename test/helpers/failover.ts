/**
 * The worker of the failover tests: one ChokaQ connected to a primary and its standby through
 * libpq's multi-host URL (the provider finds the writable host), with timers short enough that
 * a test sees rescue and reconnection within seconds.
 */
import { ChokaQ, silentLogger, type ChokaQOptions } from '../../src/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import type { Cluster } from './cluster.js';

/** A ChokaQ on `primary` and `standby` in `schema`, running `jobs`; its worker errors go to `errors`. */
export function failoverEngine(
  primary: Cluster,
  standby: Cluster,
  schema: string,
  jobs: NonNullable<ChokaQOptions['jobs']>,
  errors: string[],
): ChokaQ {
  const url =
    `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/postgres` +
    '?target_session_attrs=read-write';
  const chokaq = new ChokaQ({
    storage: postgres({ connectionString: url, schema, poolSize: 4, logger: silentLogger }),
    jobs,
    concurrency: 4,
    pollInterval: 200,
    heartbeatInterval: 300,
    zombieTimeout: '2s',
    rescueInterval: 300,
    fetchedTimeout: '2s',
    logger: silentLogger,
  });
  chokaq.on('worker:error', ({ where, error }) => errors.push(`${where}: ${String(error)}`));
  return chokaq;
}
