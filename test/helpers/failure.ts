import { ChokaQError } from '../../src/errors.js';

/**
 * The ChokaQError `call` throws or rejects with. Fails the test when it succeeds, or when it fails
 * with anything else.
 */
export async function failure(call: () => unknown): Promise<ChokaQError> {
  try {
    await call();
  } catch (error) {
    if (error instanceof ChokaQError) return error;
    throw new Error(`expected a ChokaQError, got ${String(error)}`, { cause: error });
  }
  throw new Error('expected the call to fail');
}
