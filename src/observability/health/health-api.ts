/**
 * `chokaq.health`: liveness and readiness as functions returning a structured report, and as a
 * `(req, res)` handler at Kubernetes-style paths. `live` asks whether this process should be
 * restarted (its worker is stuck); `ready` whether it should get work (the database answers, the
 * worker runs, no served queue is backed up beyond its thresholds).
 */
import type { HealthSettings } from '../../runtime/settings.js';
import type { WorkerHealth } from '../../runtime/engine.js';
import type { DueTypeCount, QueueGauges, WorkerPresence } from '../../storage/model.js';
import { waitAtMost, type Clock } from '../../util/clock.js';
import { reply, type HttpHandler } from '../../util/http.js';
import {
  checkDb,
  checkSaturation,
  checkWorker,
  worse,
  type CheckResult,
  type HealthStatus,
} from './checks.js';
import { systemHealth, type SystemHealth } from './system.js';

/** Most due rows {@link HealthApi.system} reads to find work no live worker runs. */
const DUE_READ_LIMIT = 10_000;

/** A health report: the overall status (the worst check's) and every check. */
export interface HealthReport {
  status: HealthStatus;
  checks: CheckResult[];
  /** When the report was made (clock time). */
  checkedAt: Date;
}

/** What the health API reads. */
export interface HealthSources {
  settings: HealthSettings;
  clock: Clock;
  /** A round trip to the store (opening it first if needed). */
  roundTrip: () => Promise<unknown>;
  queueGauges: () => Promise<QueueGauges[]>;
  worker: () => WorkerHealth;
  /** The worker processes alive, in every process. */
  workers: () => Promise<WorkerPresence[]>;
  /** Due jobs of `queues` by type, from at most `limit` rows. */
  dueByType: (queues: readonly string[], limit: number) => Promise<DueTypeCount[]>;
  /** The queues this process works on; `null` for all. */
  servedQueues: readonly string[] | null;
}

/** The health checks of one ChokaQ (`chokaq.health`). */
export class HealthApi {
  private readonly served: ReadonlySet<string> | null;

  constructor(private readonly sources: HealthSources) {
    this.served = sources.servedQueues ? new Set(sources.servedQueues) : null;
  }

  /** Liveness: `chokaq_worker` alone. */
  live(): Promise<HealthReport> {
    return Promise.resolve(this.report([this.worker()]));
  }

  /** Readiness: `chokaq_db`, `chokaq_worker` and `chokaq_queue_saturation`. */
  async ready(): Promise<HealthReport> {
    const { settings, clock, roundTrip } = this.sources;
    const [db, saturation] = await Promise.all([
      checkDb(roundTrip, clock, settings.dbTimeoutMs),
      this.saturation(),
    ]);
    return this.report([db, this.worker(), saturation]);
  }

  /**
   * The health of the whole system, whichever process asks: the database, every worker alive
   * (its heartbeat and its own check), every queue's lag against its thresholds, and the due
   * jobs no live worker can run — with their queue and type. Reads at most 10,000 due rows for
   * the last (`strandedCapped` says when it stopped there).
   */
  async system(): Promise<SystemHealth> {
    const { settings, clock, roundTrip } = this.sources;
    const [db, gauges, workers] = await Promise.all([
      checkDb(roundTrip, clock, settings.dbTimeoutMs),
      this.sources.queueGauges(),
      this.sources.workers(),
    ]);
    const waiting = gauges.filter((g) => g.due > 0 && !g.paused && g.active).map((g) => g.queue);
    const due = waiting.length === 0 ? [] : await this.sources.dueByType(waiting, DUE_READ_LIMIT);
    const read = due.reduce((n, d) => n + d.due, 0);
    return systemHealth({
      db,
      gauges,
      workers,
      dueByType: due,
      strandedCapped: read >= DUE_READ_LIMIT,
      now: gauges[0]?.readAt ?? new Date(clock.now()),
      settings,
    });
  }

  /**
   * A `(req, res)` handler: a URL ending in `/live` or `/livez` answers {@link HealthApi.live},
   * one ending in `/ready` or `/readyz` {@link HealthApi.ready}, as JSON with status 200 (ok,
   * degraded) or 503 (unhealthy); any other path is 404. Mount it where you like
   * (`http.createServer(chokaq.health.handler())` serves `/live` and `/ready`).
   */
  handler(): HttpHandler {
    return (req, res) => {
      const path = (req.url ?? '/').split('?', 1)[0]?.replace(/\/+$/, '') ?? '';
      const probe = /\/(live|ready)z?$/.exec(path)?.[1];
      if (probe === undefined) {
        reply(res, 404, 'application/json', '{"error":"not found: use /live or /ready"}\n');
        return;
      }
      void (probe === 'live' ? this.live() : this.ready()).then((report) =>
        reply(
          res,
          report.status === 'unhealthy' ? 503 : 200,
          'application/json',
          `${JSON.stringify(report)}\n`,
        ),
      );
    };
  }

  private worker(): CheckResult {
    const { settings, clock, worker } = this.sources;
    return checkWorker(worker(), clock.now(), settings.stallTimeoutMs);
  }

  private async saturation(): Promise<CheckResult> {
    const { settings, clock } = this.sources;
    try {
      let gauges: QueueGauges[] = [];
      const reading = this.sources.queueGauges().then((read) => (gauges = read));
      if (!(await waitAtMost(clock, reading, settings.dbTimeoutMs))) {
        return {
          name: 'chokaq_queue_saturation',
          status: 'unhealthy',
          message: `the queues could not be read within ${settings.dbTimeoutMs} ms`,
          data: {},
        };
      }
      return checkSaturation(gauges, this.served, settings);
    } catch (error) {
      return {
        name: 'chokaq_queue_saturation',
        status: 'unhealthy',
        message: `the queues could not be read: ${error instanceof Error ? error.message : String(error)}`,
        data: {},
      };
    }
  }

  private report(checks: CheckResult[]): HealthReport {
    const status = checks.reduce<HealthStatus>((all, check) => worse(all, check.status), 'ok');
    return { status, checks, checkedAt: new Date(this.sources.clock.now()) };
  }
}
