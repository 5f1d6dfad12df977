/** Short messages in a corner: what an action did, or why it failed. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from '../lib/api.js';

interface Toast {
  id: number;
  kind: 'ok' | 'error';
  text: string;
}

let toasts: Toast[] = [];
let nextId = 1;
const listeners = new Set<(t: Toast[]) => void>();

function publish(next: Toast[]): void {
  toasts = next;
  for (const listener of listeners) listener(toasts);
}

/** Shows a message for a few seconds. */
export function toast(text: string, kind: Toast['kind'] = 'ok'): void {
  const item = { id: nextId++, kind, text };
  publish([...toasts, item].slice(-5));
  setTimeout(() => publish(toasts.filter((t) => t !== item)), kind === 'error' ? 8000 : 4000);
}

/** Shows an error: the server's message and code when it has them (not its API field path). */
export function toastError(error: unknown): void {
  const text = error instanceof ApiError ? `${error.message} [${error.code}]` : String(error);
  toast(text, 'error');
}

/** The toast area. */
export function Toasts() {
  const [items, setItems] = useState(toasts);
  useEffect(() => {
    listeners.add(setItems);
    return () => void listeners.delete(setItems);
  }, []);
  return (
    <div class="toasts" role="status" aria-live="polite">
      {items.map((t) => (
        <div key={t.id} class={`toast toast-${t.kind}`}>
          {t.text}
        </div>
      ))}
    </div>
  );
}
