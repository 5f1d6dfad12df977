/**
 * An object's fields as `key value` pairs that wrap like words, for dense tables (the audit
 * trail's target and outcome): strings as they are, lists as their length and items, other
 * values as compact JSON, and a string that holds a JSON object or array (such as a stored
 * schedule definition) as that value, not as escaped text; a value too long for the cell is
 * cut, whole in its tooltip.
 */

/** The compact text of one value; a list starts with its length, so a cut one still says it. */
function compact(value: unknown): string {
  if (Array.isArray(value)) {
    return `(${value.length}) ${value.map((v) => (typeof v === 'string' ? v : compact(v))).join(', ')}`;
  }
  if (typeof value !== 'string') return JSON.stringify(value) ?? String(value);
  if (!/^\s*[[{]/.test(value)) return value;
  try {
    return JSON.stringify(JSON.parse(value) as unknown);
  } catch {
    return value;
  }
}

/** The fields of `value` (an object), or its compact text when it is not one. */
export function FieldsView(props: { value: unknown }) {
  const { value } = props;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return <span class="mono">{compact(value)}</span>;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return <span class="muted">—</span>;
  return (
    <span class="fields">
      {entries.map(([key, v]) => (
        <span key={key} class="field" data-field={key}>
          <span class="muted">{key}</span>{' '}
          <span class="mono" title={compact(v)}>
            {compact(v)}
          </span>
        </span>
      ))}
    </span>
  );
}
