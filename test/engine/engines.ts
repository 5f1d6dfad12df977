import { afterEach, beforeAll, beforeEach } from 'vitest';
import { ChokaQ, silentLogger, type ChokaQOptions } from '../../src/index.js';
import type { Store } from '../../src/storage/store.js';
import type { EngineStoreFactory } from './suite.js';

/** Makes engines for the tests of one `describe` block. */
export interface Engines {
  /** An engine on `storage` (not started), stopped after the test. */
  engineOn: (storage: Store, options: Omit<ChokaQOptions, 'storage'>) => ChokaQ;
  /** Like {@link Engines.engineOn}, started. */
  started: (storage: Store, options: Omit<ChokaQOptions, 'storage'>) => Promise<ChokaQ>;
}

/**
 * The set-up the engine suites share; call inside a `describe`. Its tests are skipped (loudly)
 * when the provider's storage is not available, and every engine a test made is stopped after it.
 * Engines log nothing and poll every 50 ms unless the options say otherwise.
 */
export function useEngines(name: string, factory: EngineStoreFactory): Engines {
  const engines: ChokaQ[] = [];
  let available = true;

  // Under CI=true an unreachable PostgreSQL throws here, failing every test of the file.
  beforeAll(async () => {
    available = factory.available ? await factory.available() : true;
  });

  beforeEach((context) => {
    if (!available) context.skip(`${name} storage is not available`);
  });

  afterEach(async () => {
    await Promise.all(engines.splice(0).map((engine) => engine.stop()));
  });

  const engineOn: Engines['engineOn'] = (storage, options) => {
    const chokaq = new ChokaQ({ storage, logger: silentLogger, pollInterval: 50, ...options });
    engines.push(chokaq);
    return chokaq;
  };
  return {
    engineOn,
    started: async (storage, options) => {
      const chokaq = engineOn(storage, options);
      await chokaq.start();
      return chokaq;
    },
  };
}
