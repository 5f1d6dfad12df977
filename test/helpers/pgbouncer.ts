/**
 * A PgBouncer of the test's own, in transaction mode, in front of the test PostgreSQL: started
 * on a free port from a config in a temporary directory (as the `postgres` user when this runs as
 * root, since PgBouncer refuses root), stopped by the test. Debian's `pgbouncer` package (1.18).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_DATABASE_URL } from './pg.js';
import { waitFor } from './wait.js';
import { freePort } from './cluster.js';

/** Whether the `pgbouncer` binary is installed. */
export function pgbouncerInstalled(): boolean {
  return spawnSync('pgbouncer', ['--version']).status === 0;
}

/** A running PgBouncer and the URL that reaches the test database through it. */
export interface Bouncer {
  url: string;
  stop(): Promise<void>;
}

/** Starts PgBouncer in transaction mode; resolves once it accepts connections. */
export async function startPgbouncer(): Promise<Bouncer> {
  const target = new URL(TEST_DATABASE_URL);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'chokaq-pgbouncer-'));
  chmodSync(dir, 0o777);
  const user = decodeURIComponent(target.username || 'postgres');
  const database = target.pathname.replace(/^\//, '') || 'postgres';
  writeFileSync(join(dir, 'users.txt'), `"${user}" ""\n`);
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `${database} = host=${target.hostname} port=${target.port || 5432} dbname=${database}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 200',
      'default_pool_size = 20',
      `unix_socket_dir = ${dir}`,
      `pidfile = ${join(dir, 'pgbouncer.pid')}`,
      'ignore_startup_parameters = extra_float_digits,options',
      '',
    ].join('\n'),
  );
  for (const file of ['users.txt', 'pgbouncer.ini']) chmodSync(join(dir, file), 0o644);
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = asRoot
    ? spawn('runuser', ['-u', 'postgres', '--', 'pgbouncer', join(dir, 'pgbouncer.ini')], {
        stdio: 'ignore',
      })
    : spawn('pgbouncer', [join(dir, 'pgbouncer.ini')], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(true);
        });
        socket.once('error', () => resolve(false));
      }),
    { timeoutMs: 10_000, intervalMs: 50, message: 'PgBouncer to listen' },
  );
  const url = new URL(TEST_DATABASE_URL);
  url.port = String(port);
  return {
    url: url.toString(),
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5000))]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
