/**
 * Every ```ts block of README.md (and of the documents in DOCS) type-checks against the built package, resolved as `chokaq`
 * through its `exports`, under the settings `tsc --init` writes (strict,
 * exactOptionalPropertyTypes, noUncheckedIndexedAccess, verbatimModuleSyntax, nodenext…) with
 * Node's lib and types and `skipLibCheck: false`.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  REPO_ROOT,
  createProject,
  effectiveOptions,
  linkModules,
  linkRepoModules,
  removeProject,
  typeCheck,
  writeTsconfig,
} from '../helpers/temp-project.js';
import { blockFileName, codeBlocks, type CodeBlock } from './readme-blocks.js';
import { README_CONTEXT } from './readme-context.js';

/** Hono's declarations use the DOM's WebSocket types, so its example is checked with that library. */
/** The documents besides README.md whose ts blocks are checked the same way. */
const DOCS = ['docs/workflows.md'];

const needsDom = (code: string) => /from '(hono|@hono\/node-server)/.test(code);

const MODULES = [
  'zod',
  'pg',
  '@types/node',
  '@types/pg',
  // The Deck's mounting examples.
  'express',
  '@types/express',
  'fastify',
  'hono',
  '@hono/node-server',
];

describe('README.md', () => {
  const dirs: string[] = [];

  /** A project that type-checks `blocks` with `lib`, the package linked as `chokaq`. */
  function check(name: string, lib: string[], blocks: CodeBlock[]): string {
    const dir = createProject(name);
    dirs.push(dir);
    linkModules(dir, { chokaq: REPO_ROOT });
    linkRepoModules(dir, MODULES);
    // The Node.js variant tsc --init suggests in its comments, and library declarations checked.
    writeTsconfig(dir, { skipLibCheck: false, noEmit: true, lib, types: ['node'] });
    blocks.forEach((block, index) => {
      writeFileSync(join(dir, blockFileName(index, block)), block.code);
    });
    writeFileSync(join(dir, 'readme-context.d.ts'), README_CONTEXT);
    expect(effectiveOptions(dir)).toMatchObject({
      strict: true,
      exactOptionalPropertyTypes: true,
      noUncheckedIndexedAccess: true,
      verbatimModuleSyntax: true,
      skipLibCheck: false,
    });
    return typeCheck(dir);
  }

  beforeAll(() => {
    if (!existsSync(join(REPO_ROOT, 'dist', 'index.d.ts'))) {
      throw new Error('dist/ is missing: run `npm run build` first');
    }
  });

  afterAll(() => dirs.forEach(removeProject));

  // Two full tsc runs with the libraries' types checked: ~50 s on a loaded two-core machine, 85 s
  // under a heavier load, so the default minute is too tight a bound.
  it('type-checks every ts block against the built package', { timeout: 240_000 }, () => {
    const blocks = ['README.md', ...DOCS].flatMap((file) =>
      codeBlocks(readFileSync(join(REPO_ROOT, file), 'utf8'), 'ts'),
    );
    expect(blocks.map((b) => b.heading)).toContain('Quick start');
    const dom = blocks.filter((b) => needsDom(b.code));
    expect(dom).toHaveLength(1);
    expect(
      check(
        'readme',
        ['esnext'],
        blocks.filter((b) => !needsDom(b.code)),
      ),
    ).toBe('');
    expect(check('readme-dom', ['esnext', 'dom'], dom)).toBe('');
  });
});
