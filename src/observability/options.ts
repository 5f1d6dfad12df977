/**
 * The `telemetry` option of `new ChokaQ`: metrics on or off, and the OpenTelemetry providers that
 * metrics/ and tracing/ use. config/telemetry.ts checks it.
 */
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';

/** Where ChokaQ's metrics and spans go (docs/observability.md). */
export interface TelemetryOptions {
  /**
   * Record metrics: the OpenTelemetry instruments of the meter `chokaq` and, once asked for, the
   * Prometheus endpoint (`chokaq.metrics`). Default: `true`.
   */
  metrics?: boolean;
  /**
   * Where the instruments are made. Default: the global MeterProvider of `@opentelemetry/api`
   * at construction — a no-op that costs nothing until an OpenTelemetry SDK registers one.
   */
  meterProvider?: MeterProvider;
  /** Where the run spans go. Default: the global TracerProvider of `@opentelemetry/api`. */
  tracerProvider?: TracerProvider;
}
