/**
 * Throwaway PostgreSQL 15 clusters for tests that cut, stop or fail over the server: `initdb` into
 * a temporary directory (as the `postgres` user), started with `pg_ctl` on a free port and the
 * addresses the test names, stopped (immediate) and deleted by {@link Cluster.destroy}. The
 * shared server at 127.0.0.1:5432 is never touched.
 *
 * Needs root (runuser to `postgres`) and the PostgreSQL 15 binaries; {@link clusterUnavailable}
 * says why not.
 */
import { execFile, spawnSync } from 'node:child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Where Debian puts the PostgreSQL 15 binaries. */
export const PG_BIN = '/usr/lib/postgresql/15/bin';

/** The uid and gid of the `postgres` user, or `null` when not root or there is none. */
function postgresOwner(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return null;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Why a throwaway cluster cannot run here, or `null` when it can. */
export function clusterUnavailable(): string | null {
  if (postgresOwner() === null) return 'not root, or no postgres user';
  for (const binary of ['initdb', 'pg_ctl', 'pg_basebackup']) {
    if (!existsSync(join(PG_BIN, binary))) return `no ${join(PG_BIN, binary)}`;
  }
  if (spawnSync('runuser', ['--help']).status !== 0) return 'no runuser';
  return null;
}

/** Runs a PostgreSQL binary as `postgres`; rejects on a non-zero exit or after `timeoutMs`. */
export function asPostgres(
  binary: string,
  args: readonly string[],
  timeoutMs = 60_000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'runuser',
      ['-u', 'postgres', '--', join(PG_BIN, binary), ...args],
      { timeout: timeoutMs, killSignal: 'SIGKILL', cwd: tmpdir() },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${binary} ${args.join(' ')}: ${error.message}\n${stderr}`));
        else resolve(stdout);
      },
    );
  });
}

/**
 * Ports below Linux's ephemeral range (32768–60999): a port the kernel hands out for binding port
 * 0 is one it also hands to outgoing connections, so the thousands of client connections of a
 * test run could take it between this check and the server's bind (a cluster then failed to
 * start in CI: "could not start server").
 */
const PORT_RANGE = { from: 20_000, to: 32_000 } as const;
/** Ports tried before giving up. */
const PORT_TRIES = 50;

/** A TCP port nobody listens on right now, outside the ephemeral range (then released). */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < PORT_TRIES; attempt++) {
    const port = PORT_RANGE.from + Math.floor(Math.random() * (PORT_RANGE.to - PORT_RANGE.from));
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port in ${PORT_RANGE.from}–${PORT_RANGE.to} after ${PORT_TRIES} tries`);
}

/** Whether a server can listen on `port` of 127.0.0.1 now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

export interface ClusterOptions {
  /** Addresses to listen on besides 127.0.0.1. Default: none. */
  listen?: readonly string[];
  /** Networks (CIDR) allowed in, with trust, besides loopback. Default: none. */
  allow?: readonly string[];
  /** Make a streaming standby of this cluster instead of a new one. Default: a new cluster. */
  standbyOf?: Cluster;
  /**
   * With `standbyOf`: make the standby synchronous. Its `primary_conninfo` carries the
   * `application_name` `standby_<port>`, and `standbyOf` gets `synchronous_standby_names` naming
   * it (reloaded before the standby starts), so each commit there with `synchronous_commit = on`
   * (the server default) is acknowledged only once the standby has flushed it. The standby's own
   * configuration is copied before that, so once promoted it waits for nobody. Default: `false`
   * (asynchronous streaming).
   */
  synchronous?: boolean;
}

/** A throwaway cluster. */
export interface Cluster {
  readonly dir: string;
  readonly dataDir: string;
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  readonly url: string;
  /** Whether the test believes it runs (started and not stopped). */
  running: boolean;
  start(): Promise<void>;
  /** `pg_ctl stop` in `mode` (default `immediate`). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** `pg_ctl promote` (a standby only). */
  promote(): Promise<void>;
  /** Stops it if running and deletes its directory. Never throws. */
  destroy(): Promise<void>;
}

/** Rows of `sql` on `cluster`, on a connection of its own (5 s to connect). */
export async function queryCluster<R extends pg.QueryResultRow>(
  cluster: Cluster,
  sql: string,
  params: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: cluster.url, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<R>(sql, params)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** How many rows `table` (schema-qualified, quoted as needed) holds on `cluster`. */
export async function countRows(cluster: Cluster, table: string): Promise<number> {
  const [row] = await queryCluster<{ n: string }>(cluster, `SELECT count(*) AS n FROM ${table}`);
  return Number(row?.n);
}

/** Makes and starts a cluster (a fresh one, or a standby of `options.standbyOf`). */
export async function createCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const owner = postgresOwner();
  if (owner === null) throw new Error('createCluster needs root and a postgres user');
  const dir = mkdtempSync(join(tmpdir(), 'chokaq-cluster-'));
  chownSync(dir, owner.uid, owner.gid);
  const dataDir = join(dir, 'data');
  const port = await freePort();
  const listen = ['127.0.0.1', ...(options.listen ?? [])].join(',');
  let running = false;
  const cluster: Cluster = {
    dir,
    dataDir,
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    get running() {
      return running;
    },
    set running(value: boolean) {
      running = value;
    },
    async start() {
      await asPostgres('pg_ctl', [
        '-D',
        dataDir,
        '-l',
        join(dir, 'server.log'),
        '-o',
        `-p ${port} -k ${dir} -c listen_addresses=${listen} -c fsync=off`,
        '-w',
        '-t',
        '30',
        'start',
      ]);
      running = true;
    },
    async stop(mode = 'immediate') {
      await asPostgres('pg_ctl', ['-D', dataDir, '-m', mode, '-w', '-t', '30', 'stop']);
      running = false;
    },
    async promote() {
      await asPostgres('pg_ctl', ['-D', dataDir, '-w', '-t', '30', 'promote']);
    },
    async destroy() {
      if (running) await cluster.stop('immediate').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  try {
    if (options.standbyOf === undefined) {
      await asPostgres('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    } else {
      const applicationName = `standby_${port}`;
      await asPostgres('pg_basebackup', [
        // -R writes the connection's application_name into primary_conninfo.
        ...(options.synchronous === true ? ['-d', `application_name=${applicationName}`] : []),
        '-h',
        '127.0.0.1',
        '-p',
        String(options.standbyOf.port),
        '-U',
        'postgres',
        '-D',
        dataDir,
        '-X',
        'stream',
        '-R',
      ]);
      if (options.synchronous === true) {
        // A later line of postgresql.conf overrides an earlier one.
        appendFileSync(
          join(options.standbyOf.dataDir, 'postgresql.conf'),
          `synchronous_standby_names = '"${applicationName}"'\n`,
        );
        await asPostgres('pg_ctl', ['-D', options.standbyOf.dataDir, 'reload']);
      }
    }
    const hba = (options.allow ?? []).map((cidr) => `host all all ${cidr} trust\n`).join('');
    if (hba !== '') appendFileSync(join(dataDir, 'pg_hba.conf'), hba);
    await cluster.start();
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
  return cluster;
}
