/** Creates the adapter of a system; peers are imported only when asked for. */
import type { SystemName } from '../types.js';
import type { AdapterOptions, SystemAdapter } from './adapter.js';
import { ChokaQAdapter } from './chokaq.js';

/**
 * The adapter of `system`.
 * @throws MissingPeerError when the peer package is not installed.
 */
export async function loadAdapter(
  system: SystemName,
  options: AdapterOptions,
): Promise<SystemAdapter> {
  switch (system) {
    case 'chokaq-postgres':
    case 'chokaq-embedded':
      return new ChokaQAdapter(system, options);
    case 'pg-boss': {
      const { PgBossAdapter } = await import('./pg-boss.js');
      return PgBossAdapter.create(options);
    }
    case 'graphile-worker': {
      const { GraphileWorkerAdapter } = await import('./graphile-worker.js');
      return GraphileWorkerAdapter.create(options);
    }
  }
}
