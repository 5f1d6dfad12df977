/** Creates the adapter of a row; peers are imported only when asked for. */
import type { SystemName } from '../contenders.js';
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
    case 'chokaq-postgres-c128':
    case 'chokaq-postgres-nohistory':
    case 'chokaq-embedded':
      return new ChokaQAdapter(system, options);
    case 'pg-boss':
    case 'pg-boss-batch500': {
      const { PgBossAdapter } = await import('./pg-boss.js');
      return PgBossAdapter.create(system, options);
    }
    case 'graphile-worker':
    case 'graphile-worker-batched': {
      const { GraphileWorkerAdapter } = await import('./graphile-worker.js');
      return GraphileWorkerAdapter.create(system, options);
    }
  }
}
