/**
 * Keyboard of the job matrix and the inspector: `j` / `k` move the row cursor, `Enter` opens the
 * cursor's job, `x` toggles its selection, `Esc` clears the selection in the matrix and, in the
 * inspector, goes back to the matrix it was opened from (with its cursor where it was). Keys
 * typed in a field, with a modifier, or while a dialog is open are left alone.
 */
import { useEffect, useRef } from 'preact/hooks';

/** What the keys do in one view. */
export interface KeyHandlers {
  /** `j` (+1) or `k` (−1). */
  move?: (by: 1 | -1) => void;
  open?: () => void;
  toggle?: () => void;
  escape?: () => void;
}

/** Whether a key is not The Deck's: typed in a field, with a modifier, or in an open dialog. */
export function leftAlone(e: KeyboardEvent): boolean {
  const target = e.target as HTMLElement;
  if (['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName) || target.isContentEditable)
    return true;
  return e.metaKey || e.ctrlKey || e.altKey || document.querySelector('dialog[open]') !== null;
}

/** Calls the handlers of the keys pressed while the view is shown. */
export function useViewKeys(handlers: KeyHandlers): void {
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    /** The key after `g` goes to a panel (the app's keyboard), not to this view. */
    let afterG = false;
    const onKey = (e: KeyboardEvent) => {
      if (leftAlone(e)) return;
      const target = e.target as HTMLElement;
      if (afterG || e.key === 'g') {
        afterG = !afterG;
        return;
      }
      const h = current.current;
      const run = (handler: (() => void) | undefined) => {
        if (handler === undefined) return;
        e.preventDefault();
        handler();
      };
      if (e.key === 'j') run(h.move && (() => h.move!(1)));
      else if (e.key === 'k') run(h.move && (() => h.move!(-1)));
      // A focused link or button handles its own Enter.
      else if (e.key === 'Enter' && !['A', 'BUTTON'].includes(target.tagName)) run(h.open);
      else if (e.key === 'x') run(h.toggle);
      else if (e.key === 'Escape') run(h.escape);
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
}

/** The matrix view a job was last opened from: its route, its view key and the cursor row. */
let openedFrom: { hash: string; view: string; cursor: number } | null = null;

/** Notes that the job of row `cursor` of the view `view` (at route `hash`) is being opened. */
export function rememberCursor(hash: string, view: string, cursor: number): void {
  openedFrom = { hash, view, cursor };
}

/** The cursor to start a view at: where it was when a job of it was opened, else 0. */
export function cursorFor(view: string): number {
  return openedFrom?.view === view ? openedFrom.cursor : 0;
}

/** Leaves the inspector for the matrix a job was opened from, else for `fallback`. */
export function backToMatrix(fallback: string): void {
  location.hash = (openedFrom?.hash ?? fallback).replace(/^#/, '');
}
