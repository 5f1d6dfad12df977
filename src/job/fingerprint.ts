/**
 * Error fingerprints: the key of a DLQ error group. Two failures share a group when their error
 * class, their message with the variable parts normalised, and the top frame of the user's code
 * are the same. Computed from the stored error text, so every provider and every DLQ move
 * (settle, cancel, rescue) groups alike.
 */
import { createHash } from 'node:crypto';

/** What a DLQ error group is keyed on, with the fingerprint made of it. */
export interface ErrorSignature {
  /** 16 hex digits of SHA-256 over class, message and frame. */
  fingerprint: string;
  /** The error's class (`TypeError`, `ChokaQError`, …); `Error` when the text names none. */
  errorClass: string;
  /** The first line of the message with ids, numbers, uuids, times and quoted values replaced. */
  message: string;
  /** The top stack frame outside `node_modules` and Node's internals, without line numbers. */
  frame: string | null;
}

/** Longest normalised message kept, in characters. */
const MAX_MESSAGE = 300;

/** Prefixes ChokaQ puts in front of an error's own text. */
const CHOKAQ_PREFIX = /^FATAL: /;

/** `Name: message` or a lone `Name` on the first line of a stack. */
const CLASS_HEAD = /^([A-Za-z_$][\w$]*)(?::\s|$)/;

/**
 * Variable parts of a message, replaced in this order: who cancelled (ChokaQ's own
 * `Cancelled by <actor>[ while running | : the run was lost]`, so cancels by different people
 * share a group), uuids, ISO times, quoted text, hex ids, other ids (8+ letters and digits with
 * at least two digits: ULIDs, `ord_8f3kq9zx`; not `Http2Session`), numbers, white space.
 */
const NORMALISE: readonly (readonly [RegExp, string])[] = [
  [/^Cancelled by .+?(?=(?: while running|: the run was lost)?$)/, 'Cancelled by <actor>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<uuid>'],
  [/\b\d{4}-\d{2}-\d{2}[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?/g, '<time>'],
  [/'[^'\n]*'|"[^"\n]*"|`[^`\n]*`/g, '<q>'],
  [/\b(?:0x)?(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b/gi, '<id>'],
  [
    /(?<![A-Za-z0-9])(?=[A-Za-z0-9]*[A-Za-z])(?=(?:[A-Za-z]*\d){2})[A-Za-z0-9]{8,}(?![A-Za-z0-9])/g,
    '<id>',
  ],
  [/\d+(?:\.\d+)?/g, '<n>'],
  [/\s+/g, ' '],
];

/** Frames that are not the user's code. */
const FOREIGN_FRAME = /node_modules|\(node:|\bnode:internal|^\s*at (?:new )?Promise\b|<anonymous>/;

/** The error class a stored error text names (`TypeError`, …); `Error` when it names none. */
export function errorClassOf(text: string): string {
  const head = (text.replace(CHOKAQ_PREFIX, '').split('\n', 1)[0] ?? '').trim();
  return CLASS_HEAD.exec(head)?.[1] ?? 'Error';
}

/** Computes the {@link ErrorSignature} of a stored error text. */
export function errorSignature(text: string): ErrorSignature {
  const lines = text.replace(CHOKAQ_PREFIX, '').split('\n');
  const head = (lines[0] ?? '').trim();
  const named = CLASS_HEAD.exec(head);
  const errorClass = errorClassOf(head);
  const rawMessage = named ? head.slice(named[0].length) : head;
  const message = normaliseMessage(rawMessage);
  const frame = topUserFrame(lines.slice(1));
  const fingerprint = createHash('sha256')
    .update(`${errorClass}\n${message}\n${frame ?? ''}`)
    .digest('hex')
    .slice(0, 16);
  return { fingerprint, errorClass, message, frame };
}

/** Replaces the variable parts of `message` and trims it to {@link MAX_MESSAGE} characters. */
export function normaliseMessage(message: string): string {
  let out = message;
  for (const [pattern, replacement] of NORMALISE) out = out.replace(pattern, replacement);
  return out.trim().slice(0, MAX_MESSAGE);
}

/**
 * The first `at …` line outside `node_modules` and Node's internals, as `function (dir/file)`:
 * line and column numbers and all but the last two path segments are dropped, so a redeploy that
 * moves code or the install directory keeps the group.
 */
function topUserFrame(lines: readonly string[]): string | null {
  for (const line of lines) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('at ') || FOREIGN_FRAME.test(trimmed)) continue;
    const located = /^at (?:async )?(?:(.+?) \()?(.+?)(?::\d+)?(?::\d+)?\)?$/.exec(trimmed);
    if (located === null) continue;
    const where = (located[2] ?? '').replace(/^file:\/\//, '').split(/[\\/]/);
    const file = where.slice(-2).join('/');
    return located[1] === undefined ? file : `${located[1]} (${file})`;
  }
  return null;
}
