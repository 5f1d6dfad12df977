/**
 * A dedicated `pg.Client` that LISTENs on one channel, reconnecting with back-off. After a
 * reconnect it calls `onPayload('*')` (every queue), because notifications sent while it was
 * away are lost. When LISTEN cannot work (for example behind PgBouncer in transaction mode) it
 * warns once and keeps retrying quietly: workers still poll.
 */
import pg from 'pg';
import type { Logger } from '../../observability/logger.js';

/** Payload passed to the callback after a reconnect: every queue may have new jobs. */
export const WAKE_ALL = '*';

/** Options of {@link PgListener}. */
export interface PgListenerOptions {
  /** Connection settings of the dedicated client (taken from the pool's options). */
  client: pg.ClientConfig;
  /** Channel name; a validated identifier (quoted when sent). */
  channel: string;
  onPayload: (payload: string) => void;
  logger: Logger;
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

  /** @param options See {@link PgListenerOptions}. */
  constructor(private readonly options: PgListenerOptions) {}

  /** Connects and LISTENs; resolves after the first attempt, whether or not it succeeded. */
  async start(): Promise<void> {
    await this.connect();
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
      this.options.logger.debug('listen connection lost', { error: error?.message });
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (message) => {
      if (message.channel === this.options.channel) this.options.onPayload(message.payload ?? '');
    });
    try {
      await client.connect();
      await client.query(`LISTEN "${this.options.channel}"`);
    } catch (error) {
      if (this.client === client) this.client = null;
      lost = true;
      await client.end().catch(() => undefined);
      if (this.stopped) return;
      const message = error instanceof Error ? error.message : String(error);
      if (!this.warned) {
        this.warned = true;
        this.options.logger.warn('LISTEN is unavailable; workers fall back to polling', {
          channel: this.options.channel,
          error: message,
        });
      } else {
        this.options.logger.debug('LISTEN retry failed', { error: message });
      }
      this.scheduleReconnect();
      return;
    }
    if (this.stopped) {
      await client.end().catch(() => undefined);
      return;
    }
    this.failures = 0;
    if (this.connectedOnce || this.warned) this.options.onPayload(WAKE_ALL);
    this.connectedOnce = true;
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
