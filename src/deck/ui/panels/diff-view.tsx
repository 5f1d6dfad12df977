/** A line diff of two texts (before and after an edit), changed lines marked. */

type Line = { kind: 'same' | 'gone' | 'new'; text: string };

/** The lines of `before` and `after` with the longest common run kept (LCS; texts are small). */
export function diffLines(before: string, after: string): Line[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      table[i]![j] =
        a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const out: Line[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i]! });
      i++;
      j++;
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) out.push({ kind: 'gone', text: a[i++]! });
    else out.push({ kind: 'new', text: b[j++]! });
  }
  while (i < a.length) out.push({ kind: 'gone', text: a[i++]! });
  while (j < b.length) out.push({ kind: 'new', text: b[j++]! });
  return out;
}

/** The diff, or a note that nothing changes. */
export function DiffView(props: { before: string; after: string }) {
  if (props.before === props.after) return <p class="muted">No change.</p>;
  return (
    <pre class="diff" aria-label="Diff">
      {diffLines(props.before, props.after).map((line, k) => (
        <div key={k} class={`diff-${line.kind}`}>
          {line.kind === 'gone' ? '- ' : line.kind === 'new' ? '+ ' : '  '}
          {line.text}
        </div>
      ))}
    </pre>
  );
}
