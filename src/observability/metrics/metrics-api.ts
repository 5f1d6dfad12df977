/**
 * `chokaq.metrics`: the Prometheus endpoint of this ChokaQ instance. Its registry is made on first
 * use, so a process that never serves Prometheus pays nothing for it; counting starts then.
 */
import { ChokaQError } from '../../errors.js';
import { reply, type HttpHandler } from '../../util/http.js';
import { PrometheusSink } from './prometheus-sink.js';
import type { MetricsRecorder } from './recorder.js';

/** The metrics of one ChokaQ (`chokaq.metrics`). */
export class MetricsApi {
  private prometheusSink: PrometheusSink | undefined;

  constructor(private readonly recorder: MetricsRecorder | undefined) {}

  /**
   * Every metric in the Prometheus text format (version 0.0.4): counters and histograms since
   * the first call of this or {@link MetricsApi.prometheus}, gauges read now (one query, at most
   * once a second).
   * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` when metrics are off (`telemetry.metrics: false`).
   */
  prometheusText(): Promise<string> {
    return this.sink().text();
  }

  /** The `Content-Type` of {@link MetricsApi.prometheusText}. */
  get prometheusContentType(): string {
    return this.sink().contentType;
  }

  /**
   * A `(req, res)` handler answering GET and HEAD with {@link MetricsApi.prometheusText}, wherever
   * it is mounted (`app.get('/metrics', chokaq.metrics.prometheus())`); 405 for other methods,
   * 500 with one line when the store cannot be read.
   * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` when metrics are off.
   */
  prometheus(): HttpHandler {
    const sink = this.sink();
    return (req, res) => {
      const method = req.method ?? 'GET';
      if (method !== 'GET' && method !== 'HEAD') {
        res.setHeader('Allow', 'GET, HEAD');
        reply(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
        return;
      }
      sink.text().then(
        (text) => reply(res, 200, sink.contentType, method === 'HEAD' ? '' : text),
        (error: unknown) =>
          reply(res, 500, 'text/plain; charset=utf-8', `metrics unavailable: ${String(error)}\n`),
      );
    };
  }

  private sink(): PrometheusSink {
    const recorder = this.recorder;
    if (recorder === undefined) {
      throw new ChokaQError(
        'CHOKAQ_INVALID_CONFIG',
        'metrics are off (telemetry.metrics: false); leave it unset to serve Prometheus',
        { field: 'telemetry.metrics' },
      );
    }
    if (this.prometheusSink === undefined) {
      this.prometheusSink = new PrometheusSink(() => recorder.observe());
      recorder.addSink(this.prometheusSink);
    }
    return this.prometheusSink;
  }
}
