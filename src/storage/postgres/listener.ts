/**
 * A dedicated `pg.Client` that LISTENs on the channels it is given (one connection for all of a
 * store's channels: wake-ups and cross-process events), reconnecting with back-off. After a
 * reconnect it calls every callback with `'*'`, because notifications sent while it was away are
 * lost. When LISTEN cannot work (for example behind PgBouncer in transaction mode) it warns once:
 * workers still poll.
 */
import { logEvent } from '../../observability/logging/log-events.js';
import pg from 'pg';
import type { Logger } from '../../observability/logging/logger.js';

/** Payload passed to every callback after a reconnect: notifications may have been missed. */
export const WAKE_ALL = '*';

/** Options of {@link PgListener}. */
export interface PgListenerOptions {
  /** Connection settings of the dedicated client (taken from the pool's options). */
  client: pg.ClientConfig;
  /**
   * The class of the dedicated client: the provider's host-finding one for a multi-host URL.
   * @default pg.Client
   */
  Client?: typeof pg.Client;
  logger: Logger;
  /** First reconnect delay in ms. @default 250 */
  minBackoffMs?: number;
  /** Longest reconnect delay in ms. @default 30000 */
  maxBackoffMs?: number;
}

/**
 * Whether `client`'s statements run on the server session it connected to: the server process
 * that answers is the one named in the key data the client got at connect (`processID`). A
 * pooler sends a key of its own and hands each transaction whichever server session is free, so
 * a LISTEN through it would stay registered on a session other clients use next. The server sees
 * the same session however the client reached it (TCP, a Unix socket, a plain proxy or NAT).
 */
async function ownSession(client: pg.Client): Promise<boolean> {
  const connected = (client as unknown as { processID?: number | null }).processID;
  if (typeof connected !== 'number') return false;
  const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return Number(rows[0]?.pid) === connected;
}

/** A self-healing LISTEN connection. */
export class PgListener {
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private failures = 0;
  private warned = false;
  private connectedOnce = false;
  private started = false;
  /** Callbacks by channel name (a validated identifier, quoted when sent). */
  private readonly channels = new Map<string, Set<(payload: string) => void>>();

  /** @param options See {@link PgListenerOptions}. */
  constructor(private readonly options: PgListenerOptions) {}

  /**
   * Listens on `channel` too; the first call connects. Resolves after the LISTEN was tried (the
   * first connection attempt, or the LISTEN on the live client), whether or not it succeeded, to
   * the function that stops this callback (the last one of a channel UNLISTENs).
   */
  async add(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    let callbacks = this.channels.get(channel);
    const fresh = callbacks === undefined;
    callbacks ??= new Set();
    callbacks.add(onPayload);
    this.channels.set(channel, callbacks);
    if (!this.started) {
      this.started = true;
      await this.connect();
    } else if (fresh && this.client !== null) {
      await this.client.query(`LISTEN "${channel}"`).catch(() => undefined);
    }
    return async () => {
      const set = this.channels.get(channel);
      if (!set?.delete(onPayload) || set.size > 0) return;
      this.channels.delete(channel);
      await this.client?.query(`UNLISTEN "${channel}"`).catch(() => undefined);
    };
  }

  /** Stops reconnecting and ends the client. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const client = this.client;
    this.client = null;
    if (client !== null) await client.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new (this.options.Client ?? pg.Client)(this.options.client);
    this.client = client;
    let lost = false;
    const onLost = (error?: Error): void => {
      if (lost || this.stopped || this.client !== client) return;
      lost = true;
      this.client = null;
      this.options.logger.debug('listen connection lost', {
        ...logEvent('ListenLost'),
        error: error?.message,
      });
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      for (const callback of this.channels.get(message.channel) ?? []) {
        callback(message.payload ?? '');
      }
    });
    let own: boolean;
    try {
      await client.connect();
      // Nothing is listened on unless the session is this client's own: behind a
      // transaction-mode pooler each LISTEN stays registered on whichever server connection ran
      // it, for every later client of that connection, and notifications reach nobody.
      own = await ownSession(client);
      if (own) await this.listenAll(client);
    } catch (error) {
      if (this.client === client) this.client = null;
      lost = true;
      await client.end().catch(() => undefined);
      if (this.stopped) return;
      const message = error instanceof Error ? error.message : String(error);
      if (!this.warned) {
        this.warned = true;
        this.options.logger.warn('LISTEN is unavailable; workers fall back to polling', {
          ...logEvent('ListenUnavailable'),
          channels: [...this.channels.keys()],
          error: message,
        });
      } else {
        this.options.logger.debug('LISTEN retry failed', {
          ...logEvent('ListenRetryFailed'),
          error: message,
        });
      }
      this.scheduleReconnect();
      return;
    }
    if (!own) {
      if (this.stopped || this.client !== client) return;
      this.options.logger.warn(
        'LISTEN is not used: the server session answering the LISTEN connection is not the one it connected to (a pooler such as PgBouncer); workers fall back to polling',
        { ...logEvent('ListenUnavailable'), channels: [...this.channels.keys()] },
      );
      await this.stop();
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.failures = 0;
    if (this.connectedOnce || this.warned) {
      for (const callbacks of this.channels.values())
        for (const callback of callbacks) callback(WAKE_ALL);
    }
    this.connectedOnce = true;
  }

  /** LISTENs on every channel on `client`. */
  private async listenAll(client: pg.Client): Promise<void> {
    for (const channel of this.channels.keys()) await client.query(`LISTEN "${channel}"`);
  }

  private scheduleReconnect(): void {
    if (this.stopped || this.timer !== null) return;
    const min = this.options.minBackoffMs ?? 250;
    const max = this.options.maxBackoffMs ?? 30_000;
    const base = Math.min(max, min * 2 ** Math.min(this.failures, 16));
    this.failures += 1;
    const delay = base / 2 + Math.random() * (base / 2);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, delay);
    this.timer.unref();
  }
}
