import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { describeDeckApi } from './api.js';
import { describeLiveControlsApi } from './api-live.js';
import { describeTriageApi } from './api-triage.js';
import { describeDeckTruth } from './api-truth.js';

/** A fresh schema named after `prefix` for each test of a suite. */
function store(prefix: string) {
  return () => {
    const schema = uniqueSchema(prefix);
    const storage = postgres({ connectionString: TEST_DATABASE_URL, schema, poolSize: 4 });
    return Promise.resolve({ storage, cleanup: () => dropSchema(schema) });
  };
}

if (await postgresAvailable()) {
  describeDeckApi('postgres', store('deck'));
  describeTriageApi('postgres', store('triage'));
  describeDeckTruth('postgres', store('deckt'));
  describeLiveControlsApi('postgres', store('deckl'));
}
