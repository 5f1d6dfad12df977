import { afterAll } from 'vitest';
import { postgres } from '../../src/storage/postgres/index.js';
import type { Store } from '../../src/storage/store.js';
import { TEST_DATABASE_URL, dropSchemas, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { describeBatch } from './batch.js';
import { describeBulk } from './bulk.js';
import { describeClusterEvents } from './cluster-events.js';
import { describeHealth } from './health.js';
import { describeRetentionPurge } from './retention.js';
import { describeStatus } from './status.js';
import { describeFlow } from './flow.js';
import { describeTracing } from './tracing.js';
import { describeMetrics } from './metrics.js';
import { describeEngine, type EngineStoreFactory } from './suite.js';

// A fresh schema per engine, all dropped when the file ends.
const schemas = new WeakMap<Store, string>();
const created: string[] = [];

afterAll(async () => {
  await dropSchemas(created);
});

const factory: EngineStoreFactory = {
  available: postgresAvailable,
  make() {
    const schema = uniqueSchema('eng');
    created.push(schema);
    const store = postgres({ connectionString: TEST_DATABASE_URL, schema, poolSize: 4 });
    schemas.set(store, schema);
    return Promise.resolve(store);
  },
  reopen(store) {
    return Promise.resolve(
      postgres({ connectionString: TEST_DATABASE_URL, schema: schemas.get(store) ?? '' }),
    );
  },
};

describeEngine('postgres', factory);
describeBatch('postgres', factory);
describeBulk('postgres', factory);
describeMetrics('postgres', factory);
describeHealth('postgres', factory);
describeClusterEvents('postgres', factory);
describeRetentionPurge('postgres', factory);
describeTracing('postgres', factory);
describeStatus('postgres', factory);
describeFlow('postgres', factory);
