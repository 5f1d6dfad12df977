/**
 * Input checks shared by every public entry point. Each throws a {@link ChokaQError} whose message
 * names the field, what was expected and the value received with its type, and whose `field`
 * property holds the field's path, so a caller can point at it.
 */
import { ChokaQError, type ErrorCode } from '../errors.js';

/** Longest rendering of a value inside an error message. */
const VALUE_TEXT_LIMIT = 80;

/**
 * A value as error messages show it: its rendering and its type, e.g. `1.5 (number)`,
 * `"fatal" (string)`, `[object Object] (object)`, `null`.
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (value instanceof Date) {
    return Number.isNaN(value.getTime()) ? 'an invalid Date' : `${value.toISOString()} (Date)`;
  }
  let text: string;
  switch (typeof value) {
    case 'string':
      text = JSON.stringify(value);
      break;
    case 'function':
      return 'a function';
    case 'object':
      return `an object${value.constructor?.name && value.constructor.name !== 'Object' ? ` (${value.constructor.name})` : ''}`;
    case 'symbol':
      text = value.toString();
      break;
    default: // number, bigint, boolean
      text = `${value as number | bigint | boolean}`;
  }
  if (text.length > VALUE_TEXT_LIMIT) text = `${text.slice(0, VALUE_TEXT_LIMIT - 1)}…`;
  return `${text} (${typeof value})`;
}

/** The error for `field` not being `expected`: `"<field> must be <expected>, got <value>"`. */
export function invalid(
  code: ErrorCode,
  field: string,
  expected: string,
  value: unknown,
): ChokaQError {
  return new ChokaQError(code, `${field} must be ${expected}, got ${describeValue(value)}`, {
    field,
  });
}

/** Whether `value` is a plain object (an object literal or `Object.create(null)`), not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Whether `value` is an object (not `null`) whose `methods` are all functions. */
export function hasMethods(value: unknown, methods: readonly string[]): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return methods.every((method) => typeof record[method] === 'function');
}

/**
 * Checks that `value` is a plain object whose keys are all in `allowed`; `undefined` reads as `{}`.
 * @throws ChokaQError `code` (default `CHOKAQ_INVALID_CONFIG`) when it is not an object, and
 *   `CHOKAQ_UNKNOWN_OPTION` naming the first unknown key (and the closest known one).
 */
export function checkOptions<T extends object>(
  value: T | undefined,
  field: string,
  allowed: readonly (keyof T & string)[],
  code: ErrorCode = 'CHOKAQ_INVALID_CONFIG',
): T {
  if (value === undefined) return {} as T;
  if (!isPlainObject(value)) throw invalid(code, field, 'an object', value);
  const known = keySet(allowed);
  // for…in over a plain object: no array of keys per call (enqueueMany checks every item).
  for (const key in value) {
    if (known.has(key)) continue;
    const near = closest(key, allowed);
    throw new ChokaQError(
      'CHOKAQ_UNKNOWN_OPTION',
      `${field}.${key} is not an option${near ? ` (did you mean ${near}?)` : ''}; the options of ${field} are ${allowed.join(', ')}`,
      { field: `${field}.${key}` },
    );
  }
  return value;
}

/** The allowed names of each options shape, as a set, made once per list. */
const keySets = new WeakMap<readonly string[], ReadonlySet<string>>();

function keySet(allowed: readonly string[]): ReadonlySet<string> {
  let set = keySets.get(allowed);
  if (set === undefined) {
    set = new Set(allowed);
    keySets.set(allowed, set);
  }
  return set;
}

/** Bounds of an integer check. */
export interface IntegerBounds {
  min: number;
  max: number;
}

/**
 * Checks that `value` is an integer within `bounds` (inclusive).
 * @throws ChokaQError `code` (default `CHOKAQ_INVALID_CONFIG`) otherwise.
 */
export function checkInteger(
  value: unknown,
  field: string,
  bounds: IntegerBounds,
  code: ErrorCode = 'CHOKAQ_INVALID_CONFIG',
): number {
  if (
    typeof value !== 'number' ||
    !Number.isInteger(value) ||
    value < bounds.min ||
    value > bounds.max
  ) {
    throw invalid(code, field, `an integer from ${bounds.min} to ${bounds.max}`, value);
  }
  return value;
}

/**
 * Checks that `value` is a boolean.
 * @throws ChokaQError `code` (default `CHOKAQ_INVALID_CONFIG`) otherwise.
 */
export function checkBoolean(
  value: unknown,
  field: string,
  code: ErrorCode = 'CHOKAQ_INVALID_CONFIG',
): boolean {
  if (typeof value !== 'boolean') throw invalid(code, field, 'true or false', value);
  return value;
}

/**
 * Checks that `value` is a function.
 * @throws ChokaQError `code` (default `CHOKAQ_INVALID_CONFIG`) otherwise.
 */
export function checkFunction<F>(
  value: F,
  field: string,
  code: ErrorCode = 'CHOKAQ_INVALID_CONFIG',
): F {
  if (typeof value !== 'function') throw invalid(code, field, 'a function', value);
  return value;
}

/**
 * Checks that `value` is a string of at most `maxLength` characters and, unless `blank` is
 * allowed, not blank.
 * @throws ChokaQError `code` (default `CHOKAQ_INVALID_CONFIG`) otherwise.
 */
export function checkString(
  value: unknown,
  field: string,
  maxLength: number,
  code: ErrorCode = 'CHOKAQ_INVALID_CONFIG',
  blank = false,
): string {
  if (typeof value !== 'string' || value.length > maxLength || (!blank && value.trim() === '')) {
    const what = blank ? 'a string' : 'a non-blank string';
    throw invalid(code, field, `${what} of at most ${maxLength} characters`, value);
  }
  return value;
}

/**
 * Checks that `value` is one of `allowed` (compared exactly).
 * @throws ChokaQError `code` naming the allowed values otherwise.
 */
export function checkOneOf<T extends string>(
  value: unknown,
  field: string,
  allowed: readonly T[],
  code: ErrorCode,
): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw invalid(code, field, `one of ${allowed.map((a) => `'${a}'`).join(', ')}`, value);
  }
  return value as T;
}

/**
 * Checks that `value` is an array of at most `maxLength` items.
 * @throws ChokaQError `code` (default `CHOKAQ_INVALID_ARGUMENT`) otherwise.
 */
export function checkArray(
  value: unknown,
  field: string,
  maxLength: number,
  code: ErrorCode = 'CHOKAQ_INVALID_ARGUMENT',
): readonly unknown[] {
  if (!Array.isArray(value) || value.length > maxLength) {
    throw invalid(code, field, `an array of at most ${maxLength} items`, value);
  }
  return value;
}

/** The allowed name nearest to `name` (edit distance ≤ 2, case-insensitive), if any. */
function closest(name: string, allowed: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of allowed) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance between two short strings. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
