/** Shows the CLI command and API call of a view or an action, with copy buttons. */
import { Dialog } from '../components/dialog.js';
import { toast } from '../components/toasts.js';

/** The code of `code`. */
export function CodeDialog(props: {
  title: string;
  code: { cli: string; api: string };
  onClose: () => void;
}) {
  const copy = (text: string) =>
    void navigator.clipboard?.writeText(text).then(
      () => toast('Copied'),
      () => toast('Copying was refused by the browser; select the text instead', 'error'),
    );
  return (
    <Dialog title={props.title} onClose={props.onClose} wide>
      <h3>Command line</h3>
      <pre class="code" data-code="cli">
        {props.code.cli}
      </pre>
      <button type="button" class="small ghost" onClick={() => copy(props.code.cli)}>
        Copy command
      </button>
      <h3>API</h3>
      <pre class="code" data-code="api">
        {props.code.api}
      </pre>
      <button type="button" class="small ghost" onClick={() => copy(props.code.api)}>
        Copy call
      </button>
    </Dialog>
  );
}
