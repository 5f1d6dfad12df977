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
import { describeSteps } from './steps.js';
import { describeWorkflows } from './workflows.js';
import { describeWorkflowFlow } from './workflow-flow.js';
import { describeBatches } from './batches.js';
import { describeTracing } from './tracing.js';
import { describeMetrics } from './metrics.js';
import { describeEngine, type EngineStoreFactory, type StoreRequest } from './suite.js';

// A fresh schema per engine, all dropped when the file ends; each store's schema and request
// (its clock) are kept for reopen().
const made = new WeakMap<Store, { schema: string; request: StoreRequest }>();
const created: string[] = [];

afterAll(async () => {
  await dropSchemas(created);
});

const factory: EngineStoreFactory = {
  available: postgresAvailable,
  make(request = {}) {
    const schema = uniqueSchema('eng');
    created.push(schema);
    const store = postgres({
      connectionString: TEST_DATABASE_URL,
      schema,
      poolSize: 4,
      ...request,
    });
    made.set(store, { schema, request });
    return Promise.resolve(store);
  },
  reopen(store) {
    const { schema = '', request = {} } = made.get(store) ?? {};
    return Promise.resolve(postgres({ connectionString: TEST_DATABASE_URL, schema, ...request }));
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
describeWorkflows('postgres', factory);
describeSteps('postgres', factory);
describeWorkflowFlow('postgres', factory);
describeBatches('postgres', factory);
