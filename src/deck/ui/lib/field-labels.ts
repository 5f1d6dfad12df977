/**
 * A refusal in the operator's words: the server names the API's field (`retry.maxAttempts`,
 * `timeout`), the dialog knows the label the operator typed into (`Max attempts`, `Zombie
 * timeout`), so the message says the label.
 */
import { ApiError } from './api.js';

/** The API's field names of a dialog, each with the label of its input. */
export type FieldLabels = Readonly<Record<string, string>>;

/** What a failed change says: its message with the field's label for its name, and its code. */
export function refusalText(error: unknown, labels: FieldLabels = {}): string {
  if (!(error instanceof ApiError)) return String(error);
  const field = error.field;
  const label = field === undefined ? undefined : labels[field];
  if (field === undefined || label === undefined) return `${error.message} [${error.code}]`;
  const message = error.message.startsWith(field)
    ? `${label}${error.message.slice(field.length)}`
    : `${label}: ${error.message}`;
  return `${message} [${error.code}]`;
}
