/**
 * A job id as the matrix shows it: its last 8 characters in monospace (the random end of a
 * UUIDv7, so neighbours differ), the full id on hover, and a button that copies the full id.
 * Copying the short text by hand copies the full id too.
 */
import { toast, toastError } from './toasts.js';

/** How many characters of an id the matrix shows. */
export const SHORT_ID_LENGTH = 8;

/** The end of `id` that the matrix shows. */
export function shortId(id: string): string {
  return id.length > SHORT_ID_LENGTH ? id.slice(-SHORT_ID_LENGTH) : id;
}

/** Copies `id` to the clipboard and says so. */
export async function copyId(id: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(id);
    toast(`Copied ${id}`);
  } catch (e) {
    toastError(e);
  }
}

/** The id cell's content: a link to the inspector and a copy button. */
export function JobId(props: { id: string; href: string; onOpen?: () => void }) {
  return (
    <span class="job-id">
      <a
        href={props.href}
        title={props.id}
        onClick={props.onOpen}
        onCopy={(e) => {
          e.preventDefault();
          e.clipboardData?.setData('text/plain', props.id);
        }}
      >
        {shortId(props.id)}
      </a>
      <button
        type="button"
        class="icon"
        aria-label={`Copy id ${props.id}`}
        title="Copy the full id"
        onClick={() => void copyId(props.id)}
      >
        <svg viewBox="0 0 16 16" width="12" height="12" aria-hidden="true">
          <rect x="5" y="5" width="9" height="9" rx="1.5" fill="none" stroke="currentColor" />
          <path
            d="M11 3.5V3a1 1 0 0 0-1-1H3a1 1 0 0 0-1 1v7a1 1 0 0 0 1 1h.5"
            fill="none"
            stroke="currentColor"
          />
        </svg>
      </button>
    </span>
  );
}
