/** The `telemetry` option of `new ChokaQ`: metrics on or off, and the OpenTelemetry providers. */
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';
import { ChokaQError } from '../errors.js';
import type { TelemetrySettings } from '../runtime/settings.js';
import { checkBoolean, checkOptions, describeValue, hasMethods } from '../util/check.js';

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

const TELEMETRY_KEYS = ['metrics', 'meterProvider', 'tracerProvider'] as const;

/**
 * Checks the `telemetry` option.
 * @throws ChokaQError `CHOKAQ_UNKNOWN_OPTION` or `CHOKAQ_INVALID_CONFIG` naming the field.
 */
export function resolveTelemetry(value: TelemetryOptions | undefined): TelemetrySettings {
  const options = checkOptions(value, 'telemetry', TELEMETRY_KEYS);
  return {
    metrics: checkBoolean(options.metrics ?? true, 'telemetry.metrics'),
    meterProvider: provider(options.meterProvider, 'telemetry.meterProvider', 'getMeter'),
    tracerProvider: provider(options.tracerProvider, 'telemetry.tracerProvider', 'getTracer'),
  };
}

function provider<T>(value: T | undefined, field: string, method: string): T | undefined {
  if (value === undefined) return undefined;
  if (!hasMethods(value, [method])) {
    throw new ChokaQError(
      'CHOKAQ_INVALID_CONFIG',
      `${field} must be an OpenTelemetry provider with ${method}(), got ${describeValue(value)}`,
      { field },
    );
  }
  return value;
}
