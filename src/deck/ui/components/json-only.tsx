/**
 * What an editor shows for payloads of job types whose schema this process does not know: the
 * fact, before anything is typed, and the explicit choice to store the payload checked as JSON
 * only (recorded in the audit trail as `unchecked`).
 */

/** The notice and the choice; `checked` is the choice. */
export function JsonOnlyChoice(props: {
  types: readonly string[];
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
}) {
  const names = props.types.map((t) => `'${t}'`).join(', ');
  return (
    <div class="json-only" data-json-only={props.types.join(' ')}>
      <p>
        This Deck's process does not know the schema of job type{props.types.length > 1 ? 's' : ''}{' '}
        {names}: the payload will be checked as JSON only, not by the type's schema. To have it
        checked, run The Deck with the job definitions (<code>chokaq deck --module ./jobs.js</code>{' '}
        or mounted in your app).
      </p>
      <label class="check">
        <input
          type="checkbox"
          checked={props.checked}
          onChange={(e) => props.onChange((e.target as HTMLInputElement).checked)}
        />
        {props.label}
      </label>
    </div>
  );
}
