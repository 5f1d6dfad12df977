/** The fenced code blocks of a Markdown file, each with the heading it sits under. */

/** One fenced code block. */
export interface CodeBlock {
  /** Text of the nearest heading above the block, without the `#` marks. */
  heading: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The block's text, without the fences. */
  code: string;
}

const FENCE = /^```(\S*)\s*$/;
const HEADING = /^#{1,6}\s+(.*)$/;

/** The top-level blocks fenced as ```` ```lang ```` in `markdown`, in order. */
export function codeBlocks(markdown: string, lang: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let heading = '';
  let open: { lang: string; line: number; lines: string[] } | null = null;
  for (const [index, text] of markdown.split('\n').entries()) {
    const fence = FENCE.exec(text);
    if (open === null && fence !== null) {
      open = { lang: fence[1] ?? '', line: index + 1, lines: [] };
    } else if (open !== null && fence?.[1] === '') {
      if (open.lang === lang)
        blocks.push({ heading, line: open.line, code: open.lines.join('\n') });
      open = null;
    } else if (open !== null) {
      open.lines.push(text);
    } else {
      heading = HEADING.exec(text)?.[1] ?? heading;
    }
  }
  if (open !== null) throw new Error(`unclosed code fence at line ${open.line}`);
  return blocks;
}

/** A file name for the `index`-th block: `03-pipe-mode.ts`. */
export function blockFileName(index: number, block: CodeBlock): string {
  const slug = block.heading
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
  return `${String(index + 1).padStart(2, '0')}-${slug || 'top'}.ts`;
}
