import type { JobContext } from '../job/context.js';

/**
 * Wraps every run, outermost first in registration order; the handler is innermost. `payload` is
 * the parsed payload in bus mode and the raw JSON string in pipe mode. Not calling `next` skips
 * the handler and the job counts as succeeded; a throw is treated like a handler failure.
 */
export type Middleware = (
  ctx: JobContext,
  payload: unknown,
  next: () => Promise<void>,
) => Promise<void>;

/** Builds the onion: `middleware[0]` runs first and last, `inner` in the middle. */
export function composeMiddleware(
  middleware: readonly Middleware[],
  inner: () => Promise<void>,
  ctx: JobContext,
  payload: unknown,
): () => Promise<void> {
  return middleware.reduceRight<() => Promise<void>>(
    (next, layer) => once(() => layer(ctx, payload, next)),
    once(inner),
  );
}

/** Lets `step` run one time; a second call rejects, so no layer can run the handler twice. */
function once(step: () => Promise<void>): () => Promise<void> {
  let called = false;
  return () => {
    if (called) return Promise.reject(new Error('middleware called next() twice'));
    called = true;
    return step();
  };
}
