/**
 * The ground plan of src/: the layers of the table "Rooms" in docs/architecture.md, from the top,
 * written once here for scripts/check-layers.mjs. A file belongs to the layer of the longest path
 * that holds it (a folder ends in `/`); it may import from its own layer and the layers below.
 * The rows the table gives to single files of src/runtime/ and src/storage/ describe the parts of
 * one layer each, and are not layers of their own. One folder can hold parts of two layers:
 * src/observability/ is logging and tracing, low in the plan, except its health/ and metrics/,
 * which read the runtime and sit above it.
 */
export const LAYERS = [
  { part: 'command line', paths: ['src/cli/'] },
  { part: 'public entry points', paths: ['src/index.ts', 'src/testing/'] },
  { part: 'The Deck', paths: ['src/deck/'] },
  { part: 'facade', paths: ['src/chokaq.ts', 'src/composition.ts', 'src/worker-module.ts'] },
  { part: 'options', paths: ['src/config/'] },
  { part: 'recurring jobs', paths: ['src/schedule/'] },
  { part: 'enqueue pipeline', paths: ['src/enqueue/'] },
  { part: 'operator API', paths: ['src/operator/'] },
  {
    part: 'health and metrics',
    paths: ['src/observability/health/', 'src/observability/metrics/'],
  },
  { part: 'middleware', paths: ['src/idempotency/'] },
  { part: 'runtime', paths: ['src/runtime/'] },
  { part: 'storage', paths: ['src/storage/'] },
  { part: 'definitions', paths: ['src/job/'] },
  { part: 'logging and tracing', paths: ['src/observability/'] },
  { part: 'utilities', paths: ['src/util/'] },
  { part: 'errors', paths: ['src/errors.ts'] },
  { part: 'version', paths: ['src/version.ts'] },
];

/**
 * Imports the checks let pass for now, each `{ from, to }` under a comment saying why: a broken
 * layer rule or a cycle that is known and cannot be fixed yet. An entry that no longer matches an import fails the check, so the
 * list only ever shrinks.
 */
export const ALLOWED = [];
