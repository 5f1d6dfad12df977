import type { Store } from './store.js';

/**
 * Opens `store` on first call and shares that open among every caller; a failed open is
 * forgotten, so the next call tries again.
 */
export function openOnce(store: Store): () => Promise<void> {
  let opened: Promise<void> | undefined;
  return () => {
    opened ??= store.open().catch((error: unknown) => {
      opened = undefined;
      throw error;
    });
    return opened;
  };
}
