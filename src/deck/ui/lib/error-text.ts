/**
 * How a stored error text reads in The Deck: the message first, with what the engine put in front
 * of it (`FATAL: `, the error's class) as badges, and stacks whose engine frames (ChokaQ's own
 * code, `node_modules`, Node's internals) fold away so the frames of the job's code stand out.
 */

/** An error's first line split into its badges and its message. */
export interface ErrorHead {
  /** `FATAL`, then the class (`FatalError`, `TypeError`, …) when the text names one. */
  badges: string[];
  /** What is left of the first line: the message itself. */
  message: string;
}

/** The prefixes ChokaQ writes before an error's own text (see `job/failure-decision.ts`). */
const ENGINE_PREFIX = /^(FATAL): /;

/** `Name: ` at the start of a line: an error's class, as `String(error)` writes it. */
const CLASS_HEAD = /^([A-Z][\w$]*(?:Error|Exception)|Error): /;

/** Splits the first line of `text` into badges and message. */
export function errorHead(text: string): ErrorHead {
  let rest = (text.split('\n', 1)[0] ?? '').trim();
  const badges: string[] = [];
  const prefix = ENGINE_PREFIX.exec(rest);
  if (prefix) {
    badges.push(prefix[1]!);
    rest = rest.slice(prefix[0].length);
  }
  const named = CLASS_HEAD.exec(rest);
  if (named) {
    badges.push(named[1]!);
    rest = rest.slice(named[0].length);
  }
  return { badges, message: rest };
}

/** A run of stack lines: the job's own code, or engine frames that fold away. */
export interface StackPart {
  engine: boolean;
  lines: string[];
}

/**
 * Frames that are not the job's code: ChokaQ itself (installed or built: `node_modules/chokaq`,
 * `dist/runtime`, …), any other package, Node's internals and promise plumbing.
 */
const ENGINE_FRAME =
  /node_modules[\\/]|[\\/]dist[\\/](?:runtime|job|storage|operator|schedule|enqueue|util|observability)[\\/]|\(node:|node:internal|^\s*at (?:new )?Promise\b|<anonymous>/;

/** Splits a stored error text after its first line into runs of job frames and engine frames. */
export function stackParts(text: string): StackPart[] {
  const parts: StackPart[] = [];
  for (const line of text.split('\n').slice(1)) {
    if (line.trim() === '') continue;
    const engine = /^\s*at /.test(line) && ENGINE_FRAME.test(line);
    const last = parts[parts.length - 1];
    if (last && last.engine === engine) last.lines.push(line);
    else parts.push({ engine, lines: [line] });
  }
  return parts;
}
