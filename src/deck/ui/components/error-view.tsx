/**
 * A stored error as an operator reads it: the message first with the engine's prefixes as badges,
 * and the stack collapsed, its engine frames folded into one line each run.
 */
import { errorHead, stackParts } from '../lib/error-text.js';

/** The first line of `text`: the message, then its badges (`extra` first: a DLQ reason). */
export function ErrorLine({ text, extra }: { text: string; extra?: string | null | undefined }) {
  const head = errorHead(text);
  // A DLQ reason says what the engine's `FATAL` prefix says, and more.
  const badges = extra ? [extra, ...head.badges.filter((b) => b !== 'FATAL')] : head.badges;
  return (
    <span class="error-line" title={text.split('\n', 1)[0]}>
      <span class="error-message">{head.message}</span>
      {badges.map((b) => (
        <span key={b} class="badge">
          {b}
        </span>
      ))}
    </span>
  );
}

/** An error with its stack behind a toggle; engine frames stay folded when it is opened. */
export function ErrorStack({ text }: { text: string }) {
  const parts = stackParts(text);
  if (parts.length === 0) {
    return (
      <div class="error-stack">
        <ErrorLine text={text} />
      </div>
    );
  }
  const frames = parts.reduce((n, p) => n + p.lines.length, 0);
  return (
    <details class="error-stack">
      <summary>
        <ErrorLine text={text} /> <span class="muted">· stack, {frames} frames</span>
      </summary>
      <div class="error-details stack">
        {parts.map((part, k) =>
          part.engine ? (
            <details key={k} class="engine-frames" data-engine-frames={part.lines.length}>
              <summary>
                {part.lines.length} engine frame{part.lines.length === 1 ? '' : 's'}
              </summary>
              {part.lines.join('\n')}
            </details>
          ) : (
            <div key={k} class="job-frames">
              {part.lines.join('\n')}
            </div>
          ),
        )}
      </div>
    </details>
  );
}
