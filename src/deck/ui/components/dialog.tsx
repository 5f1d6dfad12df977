/** A modal dialog on the native <dialog> element (focus trap and Escape come with it). */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/** A dialog shown while mounted; `onClose` runs on Escape or the close button. */
export function Dialog(props: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog
      ref={ref}
      class={props.wide ? 'dialog dialog-wide' : 'dialog'}
      aria-label={props.title}
      onCancel={(e) => {
        e.preventDefault();
        props.onClose();
      }}
    >
      <header class="dialog-head">
        <h2>{props.title}</h2>
        <button type="button" class="ghost" aria-label="Close" onClick={props.onClose}>
          ✕
        </button>
      </header>
      <div class="dialog-body">{props.children}</div>
    </dialog>
  );
}
