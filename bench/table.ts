/** Plain-text tables of the bench report: columns padded to their widest cell, a rule below the head. */

/**
 * Renders `head` (one or more lines) and `body` as aligned columns two spaces apart: the first
 * `leftColumns` columns padded on the right (names), the rest on the left (figures).
 */
export function renderTable(
  head: readonly (readonly string[])[],
  body: readonly (readonly string[])[],
  leftColumns = 1,
): string {
  const all = [...head, ...body];
  const columns = Math.max(...all.map((line) => line.length));
  const widths = Array.from({ length: columns }, (_, col) =>
    Math.max(...all.map((line) => (line[col] ?? '').length)),
  );
  const render = (line: readonly string[]): string =>
    widths
      .map((width, col) => {
        const cell = line[col] ?? '';
        return col < leftColumns ? cell.padEnd(width) : cell.padStart(width);
      })
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [...head.map(render), rule, ...body.map(render)].join('\n') + '\n';
}
