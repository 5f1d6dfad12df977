/**
 * Array parameters as the text `pg` sends for them, made in one join. The claim and settle
 * statements pass their jobs as parallel arrays (ids, worker ids, lease tokens, durations), and
 * `pg` builds each literal element by element: a type check, two regular-expression replaces and
 * a string concatenation per element, about 0.8 µs and 0.9 KB of garbage per settled job.
 */

/**
 * `value` as the literal `pg` would send (`{"a","b"}`, every element quoted), byte for byte, when
 * its elements are strings without a quote or a backslash, numbers or booleans; otherwise
 * `value` itself, for `pg` to convert (NULL elements, escapes, dates, buffers, nested arrays).
 */
export function arrayParam(value: readonly unknown[]): string | readonly unknown[] {
  if (value.length === 0) return '{}';
  for (const element of value) {
    if (typeof element === 'string') {
      if (element.includes('"') || element.includes('\\')) return value;
    } else if (typeof element !== 'number' && typeof element !== 'boolean') {
      return value;
    }
  }
  // join() turns numbers and booleans into text as pg's prepareValue does (String(x)).
  return `{"${value.join('","')}"}`;
}

/** The statement's parameters, each array as {@link arrayParam} sends it. */
export function statementValues(params: readonly unknown[]): unknown[] {
  const values = new Array<unknown>(params.length);
  for (let i = 0; i < params.length; i++) {
    const param = params[i];
    values[i] = Array.isArray(param) ? arrayParam(param) : param;
  }
  return values;
}
