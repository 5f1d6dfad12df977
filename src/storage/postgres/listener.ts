/**
 * A dedicated `pg.Client` that LISTENs on the channels it is given (one connection for all of a
 * store's channels: wake-ups and cross-process events), reconnecting with back-off. After a
 * reconnect it calls every callback with `'*'`, because notifications sent while it was away are
 * lost. When LISTEN cannot work (for example behind PgBouncer in transaction mode) it warns once
 * and keeps retrying quietly: workers still poll.
 */
import { logEvent } from '../../observability/log-events.js';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../../observability/logger.js';

/** Payload passed to every callback after a reconnect: notifications may have been missed. */
export const WAKE_ALL = '*';

/** Options of {@link PgListener}. */
export interface PgListenerOptions {
  /** Connection settings of the dedicated client (taken from the pool's options). */
  client: pg.ClientConfig;
  logger: Logger;
  /**
   * Sends a notification on `channel` through another connection. With it, the first LISTEN is
   * checked: a probe that does not come back within `probeTimeoutMs` means LISTEN cannot work
   * here (a transaction-mode pooler), and the listener stops for good with one warning.
   * Default: no check.
   */
  probe?: (channel: string, payload: string) => Promise<void>;
  /** How long the probe may take, in ms. @default 2000 */
  probeTimeoutMs?: number;
  /** First reconnect delay in ms. @default 250 */
  minBackoffMs?: number;
  /** Longest reconnect delay in ms. @default 30000 */
  maxBackoffMs?: number;
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
  /** Whether the probe showed that notifications arrive (or no probe was asked for). */
  private verified = false;
  /**
   * The probe in progress; nothing else runs on the client meanwhile. Behind a transaction-mode
   * pooler a notification reaches this client only while one of its statements holds a server
   * connection, so a LISTEN of another channel run during the probe could let the probe's own
   * notification through and pass the pooler as a working LISTEN.
   */
  private probing: Promise<void> = Promise.resolve();
  /** Callbacks by channel name (a validated identifier, quoted when sent). */
  private readonly channels = new Map<string, Set<(payload: string) => void>>();

  /** @param options See {@link PgListenerOptions}. */
  constructor(private readonly options: PgListenerOptions) {}

  /**
   * Listens on `channel` too; the first call connects. Resolves after the LISTEN was tried (the
   * first connection attempt, or the LISTEN on the live client), whether or not it succeeded —
   * while the connection's probe runs, the LISTEN is queued behind it and not waited for; to the
   * function that stops this callback (the last one of a channel UNLISTENs).
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
      const listen = this.probing.then(() =>
        this.client?.query(`LISTEN "${channel}"`).catch(() => undefined),
      );
      // A start does not wait for the probe (about 2 s behind a pooler, where LISTEN cannot work).
      if (this.verified) await listen;
    }
    return async () => {
      const set = this.channels.get(channel);
      if (!set?.delete(onPayload) || set.size > 0) return;
      this.channels.delete(channel);
      await this.probing;
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
    const client = new pg.Client(this.options.client);
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
    try {
      await client.connect();
      for (const channel of this.channels.keys()) await client.query(`LISTEN "${channel}"`);
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
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    // Checked in the background, so a start behind a pooler does not wait for the probe.
    if (!this.verified) this.probing = this.verify(client).catch(() => undefined);
    this.failures = 0;
    if (this.connectedOnce || this.warned) {
      for (const callbacks of this.channels.values())
        for (const callback of callbacks) callback(WAKE_ALL);
    }
    this.connectedOnce = true;
  }

  /** Stops listening for good, with one warning, when the probe shows LISTEN cannot work. */
  private async verify(client: pg.Client): Promise<void> {
    if (await this.probed(client)) {
      this.verified = true;
      return;
    }
    if (this.stopped || this.client !== client) return; // stopped, or lost and reconnecting
    this.options.logger.warn(
      'LISTEN does not deliver notifications here (a transaction-mode pooler such as PgBouncer?); workers fall back to polling',
      { ...logEvent('ListenUnavailable'), channels: [...this.channels.keys()] },
    );
    await this.stop();
  }

  /** Whether a probe sent through another connection reaches `client` in time. */
  private async probed(client: pg.Client): Promise<boolean> {
    const probe = this.options.probe;
    if (probe === undefined) return true;
    const channel = `chokaq_probe_${randomBytes(6).toString('hex')}`;
    const payload = randomBytes(8).toString('hex');
    let arrived!: () => void;
    const came = new Promise<void>((resolve) => (arrived = resolve));
    const onNotification = (message: pg.Notification): void => {
      if (message.channel === channel && message.payload === payload) arrived();
    };
    client.on('notification', onNotification);
    let timer: NodeJS.Timeout | undefined;
    try {
      await client.query(`LISTEN "${channel}"`);
      await probe(channel, payload);
      const timeout = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), this.options.probeTimeoutMs ?? 2000);
        timer.unref();
      });
      return await Promise.race([came.then(() => true as const), timeout]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
      client.off('notification', onNotification);
      await client.query(`UNLISTEN "${channel}"`).catch(() => undefined);
    }
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
