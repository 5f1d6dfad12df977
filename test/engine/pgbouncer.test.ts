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
import { describeEngine, type EngineStoreFactory } from './suite.js';

const installed = pgbouncerInstalled();
if (!installed && process.env.CI === 'true') {
  throw new Error('pgbouncer is not installed under CI=true (apt-get install -y pgbouncer)');
}
if (!installed) console.warn('\n!!! SKIPPING the engine suite through PgBouncer: not installed\n');

let bouncer: Bouncer | undefined;
const schemas = new WeakMap<Store, string>();
const created: string[] = [];

beforeAll(async () => {
  if (installed && (await postgresAvailable())) bouncer = await startPgbouncer();
}, 30_000);

afterAll(async () => {
  await dropSchemas(created);
  await bouncer?.stop();
});

const open = (schema: string): Store =>
  postgres({
    connectionString: bouncer?.url ?? '',
    schema,
    poolSize: 4,
    prepareStatements: false,
  });

const factory: EngineStoreFactory = {
  available: async () => installed && (await postgresAvailable()),
  notifications: false,
  make() {
    const schema = uniqueSchema('bounce');
    created.push(schema);
    const store = open(schema);
    schemas.set(store, schema);
    return Promise.resolve(store);
  },
  reopen: (store) => Promise.resolve(open(schemas.get(store) ?? '')),
};

describeEngine('pgbouncer', factory);
