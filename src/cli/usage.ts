/** Synopsis lines of the commands' `--help`: every flag a command takes, wrapped to fit. */

/** Width synopsis lines wrap at. */
const WIDTH = 100;

/**
 * `line` wrapped at {@link WIDTH} columns between its top-level groups (never inside `[…]`),
 * continuation lines indented by four spaces.
 */
export function synopsis(line: string): string {
  const groups: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of line) {
    if (char === ' ' && depth === 0) {
      if (current !== '') groups.push(current);
      current = '';
      continue;
    }
    if (char === '[' || char === '(') depth++;
    if (char === ']' || char === ')') depth--;
    current += char;
  }
  if (current !== '') groups.push(current);
  const lines: string[] = [];
  let row = '';
  for (const group of groups) {
    if (row !== '' && row.length + 1 + group.length > WIDTH) {
      lines.push(row);
      row = `    ${group}`;
    } else row = row === '' ? group : `${row} ${group}`;
  }
  lines.push(row);
  return lines.join('\n');
}
