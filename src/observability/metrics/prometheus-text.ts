/**
 * The pieces of the Prometheus text exposition format (version 0.0.4): escaping, numbers, label
 * sets and a metric family's header. See https://prometheus.io/docs/instrumenting/exposition_formats/.
 */

/** The `Content-Type` of the text format. */
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** A `# HELP` text: backslash and line feed escaped. */
function escapeHelp(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('\n', '\\n');
}

/** A label value: backslash, double quote and line feed escaped. */
function escapeLabelValue(value: string): string {
  return escapeHelp(value).replaceAll('"', '\\"');
}

/** A sample value as the format spells it (`+Inf`, `-Inf`, `NaN`, or a Go-parsable float). */
export function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return String(value);
}

/**
 * The label pairs of `names` (in that order) taken from `values`, joined by commas, without the
 * braces; names without a value are left out.
 */
export function labelPairs(
  names: readonly string[],
  values: Readonly<Record<string, string>>,
): string {
  const pairs: string[] = [];
  for (const name of names) {
    const value = values[name];
    if (value !== undefined) pairs.push(`${name}="${escapeLabelValue(value)}"`);
  }
  return pairs.join(',');
}

/** `name{pairs} value`, or `name value` when there are no pairs. */
export function sampleLine(name: string, pairs: string, value: number): string {
  return `${name}${pairs === '' ? '' : `{${pairs}}`} ${formatValue(value)}`;
}

/** The `# HELP` and `# TYPE` lines of a family. */
export function familyHeader(name: string, help: string, type: string): string[] {
  return [`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`];
}
