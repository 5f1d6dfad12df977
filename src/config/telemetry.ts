/** The check of the `telemetry` option of `new ChokaQ` (src/observability/options.ts). */
import { ChokaQError } from '../errors.js';
import type { TelemetryOptions } from '../observability/options.js';
import type { TelemetrySettings } from '../runtime/settings.js';
import { checkBoolean, checkOptions, describeValue, hasMethods } from '../util/check.js';

const TELEMETRY_KEYS = [
  'metrics',
  'meterProvider',
  'tracerProvider',
] as const satisfies readonly (keyof TelemetryOptions)[];

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
