import { memory } from '../../src/index.js';
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
import { describeEngine, type EngineStoreFactory } from './suite.js';

const factory: EngineStoreFactory = {
  make: (request = {}) => Promise.resolve(memory(request)),
  // A closed memory store keeps its data readable, so it can inspect itself.
  reopen: (store) => Promise.resolve(store),
};

describeEngine('memory', factory);
describeBatch('memory', factory);
describeBulk('memory', factory);
describeMetrics('memory', factory);
describeHealth('memory', factory);
describeClusterEvents('memory', factory);
describeRetentionPurge('memory', factory);
describeTracing('memory', factory);
describeStatus('memory', factory);
describeFlow('memory', factory);
describeWorkflows('memory', factory);
describeSteps('memory', factory);
describeWorkflowFlow('memory', factory);
describeBatches('memory', factory);
