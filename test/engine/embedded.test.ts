import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll } from 'vitest';
import { embedded } from '../../src/storage/embedded/index.js';
import type { Store } from '../../src/storage/store.js';
import { uniqueSchema } from '../helpers/pg.js';
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

// One PGlite for the file (starting one costs seconds); a fresh schema per engine.
let pglite: PGlite;
// Each store's schema and request (its clock), for reopen().
const made = new WeakMap<Store, { schema: string; request: StoreRequest }>();

beforeAll(async () => {
  pglite = new PGlite();
  await pglite.waitReady;
});

afterAll(async () => {
  await pglite.close();
});

const factory: EngineStoreFactory = {
  make(request = {}) {
    const schema = uniqueSchema('eng');
    const store = embedded({ dataDir: 'memory://', schema, pglite, ...request });
    made.set(store, { schema, request });
    return Promise.resolve(store);
  },
  reopen(store) {
    const { schema = '', request = {} } = made.get(store) ?? {};
    return Promise.resolve(embedded({ dataDir: 'memory://', schema, pglite, ...request }));
  },
};

describeEngine('embedded', factory);
describeBatch('embedded', factory);
describeBulk('embedded', factory);
describeMetrics('embedded', factory);
describeHealth('embedded', factory);
describeClusterEvents('embedded', factory);
describeRetentionPurge('embedded', factory);
describeTracing('embedded', factory);
describeStatus('embedded', factory);
describeFlow('embedded', factory);
describeWorkflows('embedded', factory);
describeSteps('embedded', factory);
describeWorkflowFlow('embedded', factory);
describeBatches('embedded', factory);
