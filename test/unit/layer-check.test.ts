import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkLayers } from '../../scripts/layer-check.mjs';

const trees: string[] = [];

/** A project folder holding `files` (path → source), removed after the test. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'chokaq-layers-'));
  trees.push(root);
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  return root;
}

afterEach(() => {
  for (const root of trees.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** Downward imports only: the facade over options over utilities, and a Deck panel. */
const CLEAN = {
  'src/chokaq.ts': "import { options } from './config/options.js';\nexport const x = options;\n",
  'src/config/options.ts':
    "import type { Check } from '../util/check.js';\nexport const options: Check = 1;\n",
  'src/util/check.ts': 'export type Check = number;\n',
  'src/deck/ui/panel.tsx': "import { x } from '../../chokaq.js';\nexport const y = x;\n",
  'src/deck/ui/app.css': 'body {}\n',
  'src/deck/ui/main.tsx': "import './app.css';\nimport { y } from './panel.js';\nexport { y };\n",
};

describe('checkLayers', () => {
  it('passes a tree whose imports run only downwards', () => {
    expect(checkLayers(tree(CLEAN), [])).toEqual([]);
  });

  it('fails an upward import, naming both files and both layers, a type-only one too', () => {
    const root = tree({
      ...CLEAN,
      'src/config/retention.ts': 'export const ages = 1;\n',
      'src/operator/retention-api.ts':
        "import { ages } from '../config/retention.js';\nexport const a = ages;\n",
      'src/runtime/events.ts': "export type Outcome = import('../idempotency/outcome.js').O;\n",
      'src/idempotency/outcome.ts': "export type O = 'claimed';\n",
    });
    expect(checkLayers(root, [])).toEqual([
      'src/operator/retention-api.ts (layer "operator API") imports src/config/retention.ts ' +
        '(layer "options", above it): imports run only downwards (docs/architecture.md, "Rooms")',
      'src/runtime/events.ts (layer "runtime") imports src/idempotency/outcome.ts ' +
        '(layer "middleware", above it): imports run only downwards (docs/architecture.md, "Rooms")',
    ]);
  });

  it('places a file by the longest path that holds it: observability/ is low, its health/ high', () => {
    const root = tree({
      ...CLEAN,
      'src/observability/logging/logger.ts': 'export type Logger = object;\n',
      'src/observability/health/options.ts':
        "import type { Logger } from '../logging/logger.js';\nexport type H = Logger;\n",
      'src/observability/tracing/spans.ts':
        "import type { H } from '../health/options.js';\nexport type S = H;\n",
    });
    expect(checkLayers(root, [])).toEqual([
      'src/observability/tracing/spans.ts (layer "logging and tracing") imports ' +
        'src/observability/health/options.ts (layer "health and metrics", above it): ' +
        'imports run only downwards (docs/architecture.md, "Rooms")',
    ]);
  });

  it('fails an import cycle inside one layer, type-only imports included', () => {
    const root = tree({
      ...CLEAN,
      'src/job/a.ts': "import { b } from './b.js';\nexport const a = b;\n",
      'src/job/b.ts': "import type { C } from './c.js';\nexport const b: C = 1;\n",
      'src/job/c.ts': "export type { A } from './a.js';\nexport type C = number;\n",
    });
    expect(checkLayers(root, [])).toEqual([
      'import cycle: src/job/a.ts → src/job/b.ts → src/job/c.ts → src/job/a.ts',
    ]);
  });

  it('fails a file in a folder the table does not name', () => {
    const root = tree({ ...CLEAN, 'src/extra/x.ts': 'export const x = 1;\n' });
    expect(checkLayers(root, [])).toEqual(['src/extra/x.ts is in no layer of scripts/layers.mjs']);
  });

  it('ignores imports written in comments and strings, and package imports', () => {
    const root = tree({
      ...CLEAN,
      'src/util/text.ts':
        "import { join } from 'node:path';\n// import { x } from '../chokaq.js';\n" +
        "export const s = \"import { x } from '../chokaq.js'\" + join('a');\n",
    });
    expect(checkLayers(root, [])).toEqual([]);
  });

  it('lets an allowed import pass, and fails an allowance no import uses any more', () => {
    const root = tree({
      ...CLEAN,
      'src/util/up.ts': "import { x } from '../chokaq.js';\nexport const u = x;\n",
    });
    expect(checkLayers(root, [{ from: 'src/util/up.ts', to: 'src/chokaq.ts' }])).toEqual([]);
    expect(checkLayers(tree(CLEAN), [{ from: 'src/util/up.ts', to: 'src/chokaq.ts' }])).toEqual([
      'allowed import src/util/up.ts → src/chokaq.ts is no longer made: remove it',
    ]);
  });

  it('fails on a relative import of a file that does not exist', () => {
    const root = tree({ ...CLEAN, 'src/util/bad.ts': "export * from './missing.js';\n" });
    expect(() => checkLayers(root, [])).toThrow(
      'src/util/bad.ts imports ./missing.js, which is no source file',
    );
  });
});
