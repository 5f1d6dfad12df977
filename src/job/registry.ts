import { ChokaQError } from '../errors.js';
import { isPlainObject } from '../util/check.js';
import type { JobDefinition } from './define-job.js';

/** Any job definition, whatever its payload types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyJobDefinition = JobDefinition<any, any>;

/** Whether `value` is a job definition made by `defineJob` (a frozen object with a type and a handler). */
export function isJobDefinition(value: unknown): value is AnyJobDefinition {
  return (
    isPlainObject(value) && typeof value.type === 'string' && typeof value.handle === 'function'
  );
}

/**
 * Maps stable type keys to job definitions. Lookups ignore case (a row typed `EMAIL.V1` runs the
 * `email.v1` handler); two definitions whose keys differ only in case are rejected.
 */
export class JobRegistry {
  private readonly byKey = new Map<string, AnyJobDefinition>();

  /** @throws ChokaQError `CHOKAQ_DUPLICATE_JOB_TYPE` */
  constructor(definitions: readonly AnyJobDefinition[]) {
    for (const definition of definitions) {
      const key = definition.type.toLowerCase();
      if (this.byKey.has(key)) {
        throw new ChokaQError(
          'CHOKAQ_DUPLICATE_JOB_TYPE',
          `job type '${definition.type}' is defined twice`,
        );
      }
      this.byKey.set(key, definition);
    }
  }

  /** Number of registered types. */
  get size(): number {
    return this.byKey.size;
  }

  /** The definition for a stored type key, or `undefined`. */
  find(type: string): AnyJobDefinition | undefined {
    return this.byKey.get(type.toLowerCase());
  }

  /** Every registered definition. */
  all(): AnyJobDefinition[] {
    return [...this.byKey.values()];
  }
}
