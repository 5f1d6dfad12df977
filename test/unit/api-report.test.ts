import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkApiReport, entryPoints, writeApiReport } from '../../scripts/api-report-files.mjs';
import { apiSurface } from '../../scripts/api-surface.mjs';

const trees: string[] = [];

/** A project folder holding `files` (path → text), removed after the test. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'chokaq-api-'));
  trees.push(root);
  for (const [path, text] of Object.entries(files)) write(root, path, text);
  return root;
}

function write(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

afterEach(() => {
  for (const root of trees.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A package of two entry points as `tsc` would declare it, with the shapes the report prints. */
const PACKAGE = {
  'package.json': JSON.stringify({
    name: 'fixture',
    exports: {
      '.': { types: './dist/index.d.ts', default: './dist/index.js' },
      './shape': { types: './dist/shape.d.ts', default: './dist/shape.js' },
    },
  }),
  'dist/index.d.ts': [
    "import type { Shape } from './shape.js';",
    '/** A comment the report leaves out. */',
    'export declare function area(shape: Shape): number;',
    'export declare function area(shape: Shape, scale: number): number;',
    'export declare const ORIGIN: { readonly x: 0; readonly y: 0 };',
    "export type Unit = 'cm' | 'in';",
    'export declare class Ruler {',
    '    private readonly length;',
    '    protected scale(): number;',
    '    constructor(unit: Unit);',
    '    measure(shape: Shape): number;',
    '}',
    "export { type Point as Corner } from './shape.js';",
    '',
  ].join('\n'),
  'dist/shape.d.ts': [
    'export interface Point { x: number; y: number; }',
    'export interface Shape { corners: readonly Point[]; }',
    '',
  ].join('\n'),
};

/** The report of the root entry point of PACKAGE. */
const ROOT_REPORT = `# fixture (dist/index.d.ts)

## Corner: interface
interface Point {
    x: number;
    y: number;
}

## ORIGIN: const
const ORIGIN: {
    readonly x: 0;
    readonly y: 0;
};

## Ruler: class
class Ruler {
    constructor(unit: Unit);
    measure(shape: Shape): number;
}

## Unit: type
type Unit = 'cm' | 'in';

## area: function
function area(shape: Shape): number;
function area(shape: Shape, scale: number): number;

# Not exported, named by the declarations above

## Shape: interface (dist/shape.d.ts)
interface Shape {
    corners: readonly Point[];
}
`;

/** A project holding PACKAGE and its committed report. */
function reported(): string {
  const root = tree(PACKAGE);
  writeApiReport(root, entryPoints(root));
  return root;
}

/** Rewrites a file of the project by `change`. */
function plant(root: string, path: string, change: (text: string) => string): void {
  write(root, path, change(readFileSync(join(root, path), 'utf8')));
}

describe('apiSurface', () => {
  it('prints every export sorted by name with its kind, then the shapes they reach', () => {
    const root = tree(PACKAGE);
    expect(entryPoints(root)).toEqual([
      { name: 'fixture', types: 'dist/index.d.ts' },
      { name: 'fixture/shape', types: 'dist/shape.d.ts' },
    ]);
    const [main, shape] = apiSurface(root, entryPoints(root));
    expect(main).toEqual({ name: 'fixture', text: ROOT_REPORT });
    expect(shape?.text).toBe(
      '# fixture/shape (dist/shape.d.ts)\n\n' +
        '## Point: interface\ninterface Point {\n    x: number;\n    y: number;\n}\n\n' +
        '## Shape: interface\ninterface Shape {\n    corners: readonly Point[];\n}\n',
    );
  });

  it('is the same text in any folder, run after run', () => {
    const first = tree(PACKAGE);
    const second = tree(PACKAGE);
    const text = apiSurface(first, entryPoints(first));
    expect(apiSurface(first, entryPoints(first))).toEqual(text);
    expect(apiSurface(second, entryPoints(second))).toEqual(text);
    expect(JSON.stringify(text)).not.toContain(tmpdir());
  });

  it('asks for a build when a declaration file is missing', () => {
    const root = tree({ 'package.json': PACKAGE['package.json'] });
    expect(() => apiSurface(root, entryPoints(root))).toThrow(
      'dist/index.d.ts not found: run `npm run build` first',
    );
  });
});

describe('checkApiReport', () => {
  it('passes when the committed report matches the declarations', () => {
    const root = reported();
    expect(readFileSync(join(root, 'api/fixture.txt'), 'utf8')).toBe(ROOT_REPORT);
    expect(checkApiReport(root, entryPoints(root))).toBeUndefined();
  });

  it('fails on an added export, showing only the added lines', () => {
    const root = reported();
    plant(root, 'dist/index.d.ts', (text) => `${text}export declare const VERSION: string;\n`);
    expect(checkApiReport(root, entryPoints(root))).toBe(
      [
        'the public API changed: the report in api/ no longer matches the declarations in dist/.',
        'Run `npm run api:report`, review and commit the diff.',
        'api/fixture.txt differs from line 24:',
        '  + ## VERSION: const',
        '  + const VERSION: string;',
        '  +',
      ].join('\n'),
    );
  });

  it('fails on a changed signature, showing the line before and after', () => {
    const root = reported();
    plant(root, 'dist/index.d.ts', (text) =>
      text.replace('measure(shape: Shape)', 'measure(shape: Shape, unit?: Unit)'),
    );
    expect(checkApiReport(root, entryPoints(root))).toContain(
      [
        'api/fixture.txt differs from line 18:',
        '  -     measure(shape: Shape): number;',
        '  +     measure(shape: Shape, unit?: Unit): number;',
      ].join('\n'),
    );
  });

  it('fails on a changed shape that an export names without exporting it', () => {
    const root = reported();
    plant(root, 'dist/shape.d.ts', (text) => text.replace('corners:', 'name: string; corners:'));
    const problem = checkApiReport(root, entryPoints(root));
    expect(problem).toContain('api/fixture.txt differs from line 32:\n  +     name: string;');
    expect(problem).toContain('api/fixture-shape.txt differs from line 11:\n  +     name: string;');
  });

  it('fails on a missing report and on the report of an entry point that is gone', () => {
    const root = reported();
    rmSync(join(root, 'api/fixture.txt'));
    plant(root, 'package.json', (text) => text.replace(/,"\.\/shape":\{[^}]*\}/, ''));
    expect(entryPoints(root)).toHaveLength(1);
    expect(checkApiReport(root, entryPoints(root))).toMatch(
      /\napi\/fixture\.txt is missing\napi\/fixture-shape\.txt reports no entry point of package\.json$/,
    );
    expect(writeApiReport(root, entryPoints(root))).toEqual(['api/fixture.txt']);
    expect(checkApiReport(root, entryPoints(root))).toBeUndefined();
  });
});
