/**
 * The engine suite through PgBouncer in transaction mode (prepared statements off): everything
 * but the wake-up tests, which need LISTEN — the store detects that it cannot work there and the
 * workers poll.
 */
import { afterAll, beforeAll } from 'vitest';
import { postgres } from '../../src/storage/postgres/index.js';
import type { Store } from '../../src/storage/store.js';
import { dropSchemas, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { pgbouncerInstalled, startPgbouncer, type Bouncer } from '../helpers/pgbouncer.js';
import { describeEngine, type EngineStoreFactory, type StoreRequest } from './suite.js';

const installed = pgbouncerInstalled();
if (!installed && process.env.CI === 'true') {
  throw new Error('pgbouncer is not installed under CI=true (apt-get install -y pgbouncer)');
}
if (!installed) console.warn('\n!!! SKIPPING the engine suite through PgBouncer: not installed\n');

let bouncer: Bouncer | undefined;
// Each store's schema and request (its clock), for reopen().
const made = new WeakMap<Store, { schema: string; request: StoreRequest }>();
const created: string[] = [];

beforeAll(async () => {
  if (installed && (await postgresAvailable())) bouncer = await startPgbouncer();
}, 30_000);

afterAll(async () => {
  await dropSchemas(created);
  await bouncer?.stop();
});

const open = (schema: string, request: StoreRequest): Store =>
  postgres({
    connectionString: bouncer?.url ?? '',
    schema,
    poolSize: 4,
    prepareStatements: false,
    ...request,
  });

const factory: EngineStoreFactory = {
  available: async () => installed && (await postgresAvailable()),
  notifications: false,
  make(request = {}) {
    const schema = uniqueSchema('bounce');
    created.push(schema);
    const store = open(schema, request);
    made.set(store, { schema, request });
    return Promise.resolve(store);
  },
  reopen(store) {
    const { schema = '', request = {} } = made.get(store) ?? {};
    return Promise.resolve(open(schema, request));
  },
};

describeEngine('pgbouncer', factory);
