/** JSON shown as text, keys sorted, big documents folded behind a toggle. */
import { useState } from 'preact/hooks';

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** Pretty JSON with sorted keys. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(sorted(value), null, 2) ?? 'undefined';
}

/** A JSON value; past 40 lines it starts folded. */
export function JsonView(props: { value: unknown; label?: string }) {
  const text = prettyJson(props.value);
  const lines = text.split('\n').length;
  const [open, setOpen] = useState(lines <= 40);
  return (
    <div class="json">
      {lines > 40 && (
        <button type="button" class="ghost small" onClick={() => setOpen(!open)}>
          {open ? 'fold' : `show ${lines} lines`}
        </button>
      )}
      {open && <pre aria-label={props.label}>{text}</pre>}
    </div>
  );
}

/** Parses JSON typed into an editor: the value, or the parser's complaint. */
export function parseJsonText(text: string): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

/** A JSON text field with its label; says what is wrong while the text is not JSON. */
export function JsonField(props: {
  label: string;
  name: string;
  rows: number;
  value: string;
  onInput: (text: string) => void;
}) {
  const parsed = parseJsonText(props.value);
  return (
    <>
      <label>
        {props.label}
        <textarea
          rows={props.rows}
          class="mono"
          aria-label={props.name}
          value={props.value}
          onInput={(e) => props.onInput((e.target as HTMLTextAreaElement).value)}
        />
      </label>
      {'error' in parsed && <p class="error">Not valid JSON yet: {parsed.error}</p>}
    </>
  );
}
