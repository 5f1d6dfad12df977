import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { describeDeckApi } from './api.js';

if (await postgresAvailable()) {
  describeDeckApi('postgres', () => {
    const schema = uniqueSchema('deck');
    const storage = postgres({ connectionString: TEST_DATABASE_URL, schema, poolSize: 4 });
    return Promise.resolve({ storage, cleanup: () => dropSchema(schema) });
  });
}
