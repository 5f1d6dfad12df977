/**
 * Connections to the hosts of a multi-host URL (`multi-host-url.ts`) for the provider's own pool. node-postgres takes one host only, so the provider picks the
 * writable host itself: every new connection goes to the host found writable last; a host that
 * refuses the connection, or is found in recovery or read-only, is dropped and the hosts are
 * tried again in order. After a failover the pool's next connection finds the promoted standby.
 */
import pg from 'pg';
import { type HostPort } from './multi-host-url.js';

/** How long one try of a host may take to connect, in ms. */
export const HOST_CONNECT_TIMEOUT_MS = 5000;

/** `base` with its host and port replaced by `target`'s (a URL's own win over other settings). */
function withHost(base: string, target: HostPort): string {
  const url = new URL(base);
  url.hostname = target.host.includes(':') ? `[${target.host}]` : target.host;
  url.port = String(target.port);
  return url.toString();
}

/** Whether `client`'s session takes writes: not a standby in recovery, not read-only. */
async function writable(client: pg.Client): Promise<boolean> {
  const { rows } = await client.query<{ recovery: boolean; read_only: string }>(
    "SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS read_only",
  );
  return rows[0]?.recovery === false && rows[0].read_only === 'off';
}

/** The error a connection gets when no host takes writes now (retryable, like an outage). */
function noWritableHost(hosts: readonly HostPort[], detail: string): Error {
  const error = new Error(
    `no writable PostgreSQL host among ${hosts.map((h) => `${h.host}:${h.port}`).join(', ')} (${detail})`,
  ) as Error & { code: string };
  // SQLSTATE 08001 (unable to establish a connection): mapped to CHOKAQ_STORAGE_UNAVAILABLE.
  error.code = '08001';
  return error;
}

/** Finds the writable host of a list and remembers it until a connection to it fails. */
export class HostLocator {
  private current: HostPort | null = null;
  private finding: Promise<HostPort> | null = null;

  /**
   * @param hosts In the order they are tried.
   * @param base The URL of the connections that try them (user, database, SSL…), whose host is
   *   replaced by each host's.
   */
  constructor(
    readonly hosts: readonly HostPort[],
    private readonly base: string,
  ) {}

  /** The host new connections go to: the last one found writable, else the first found now. */
  target(): Promise<HostPort> {
    if (this.current !== null) return Promise.resolve(this.current);
    this.finding ??= this.find().finally(() => {
      this.finding = null;
    });
    return this.finding;
  }

  /** Forgets `host` as the writable one (a connection to it failed, or it was not writable). */
  lost(host: HostPort): void {
    if (this.current === host) this.current = null;
  }

  private async find(): Promise<HostPort> {
    const failures: string[] = [];
    for (const host of this.hosts) {
      const client = new pg.Client({
        connectionString: withHost(this.base, host),
        connectionTimeoutMillis: HOST_CONNECT_TIMEOUT_MS,
      });
      client.on('error', () => undefined);
      try {
        await client.connect();
        if (await writable(client)) {
          this.current = host;
          return host;
        }
        failures.push(`${host.host}:${host.port} is read-only`);
      } catch (error) {
        failures.push(
          `${host.host}:${host.port}: ${error instanceof Error ? error.message : String(error)}`,
        );
      } finally {
        await client.end().catch(() => undefined);
      }
    }
    throw noWritableHost(this.hosts, failures.join('; '));
  }
}

/**
 * A `pg.Client` class whose connections go to `locator`'s writable host: given to the pool
 * (`Client`) and to the LISTEN connection. A connection that fails, or lands on a host that is
 * not writable (a demoted primary), drops that host and fails with a retryable error; the next
 * connection looks again.
 */
export function locatedClient(locator: HostLocator): typeof pg.Client {
  return class LocatedClient extends pg.Client {
    constructor(config?: string | pg.ClientConfig) {
      super({
        ...(typeof config === 'string' ? { connectionString: config } : config),
        connectionTimeoutMillis: HOST_CONNECT_TIMEOUT_MS,
      });
    }

    override connect(): Promise<pg.Client>;
    override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
    override connect(
      callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void),
    ): Promise<pg.Client> | void {
      const done = this.connectLocated().then(() => this);
      if (callback === undefined) return done;
      const call = callback as (err: Error | null, c?: pg.Client) => void;
      done.then(
        (client) => call(null, client),
        (error: unknown) => call(error instanceof Error ? error : new Error(String(error))),
      );
    }

    private async connectLocated(): Promise<void> {
      const target = await locator.target();
      const self = this as unknown as { host: string; port: number };
      self.host = target.host;
      self.port = target.port;
      try {
        await super.connect();
      } catch (error) {
        locator.lost(target);
        throw error;
      }
      if (!(await writable(this).catch(() => false))) {
        locator.lost(target);
        await this.end().catch(() => undefined);
        throw noWritableHost([target], 'it is in recovery or read-only');
      }
    }
  };
}
