/** The keyboard's keys, shown by `?` anywhere (docs/deck.md has the same table). */
import { Dialog } from './dialog.js';

/** The keys of the job matrix, the inspector and dialogs. */
const VIEW_KEYS: [string, string, string][] = [
  ['/', 'anywhere', 'focuses the page’s search field'],
  ['?', 'anywhere', 'shows these keys'],
  ['j / k', 'job matrix', 'moves the row cursor down / up'],
  ['Enter', 'job matrix', 'opens the cursor’s job in the inspector'],
  ['x', 'job matrix', 'selects or unselects the cursor’s job'],
  ['Esc', 'job matrix', 'clears the selection'],
  ['Esc', 'inspector', 'back to the matrix it was opened from'],
  ['Esc', 'a dialog', 'closes it'],
];

/** The dialog; `nav` lists each panel with its keys (`g o`). */
export function ShortcutsDialog(props: { nav: [string, string, string][]; onClose: () => void }) {
  return (
    <Dialog title="Keyboard shortcuts" onClose={props.onClose}>
      <table class="grid keys" aria-label="Keyboard shortcuts">
        <tbody>
          {props.nav.map(([id, label, keys]) => (
            <tr key={id}>
              <td>
                <kbd>{keys}</kbd>
              </td>
              <td class="muted">anywhere</td>
              <td>goes to {label}</td>
            </tr>
          ))}
          {VIEW_KEYS.map(([keys, where, does]) => (
            <tr key={`${keys}-${where}`}>
              <td>
                <kbd>{keys}</kbd>
              </td>
              <td class="muted">{where}</td>
              <td>{does}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="muted">
        Keys typed in a field, with Ctrl, Alt or Meta, or while a dialog is open are left alone.
      </p>
    </Dialog>
  );
}
