/**
 * Every ```ts block of README.md type-checks against the built package, resolved as `chokaq`
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
import { blockFileName, codeBlocks } from './readme-blocks.js';
import { README_CONTEXT } from './readme-context.js';

describe('README.md', () => {
  let dir = '';

  beforeAll(() => {
    if (!existsSync(join(REPO_ROOT, 'dist', 'index.d.ts'))) {
      throw new Error('dist/ is missing: run `npm run build` first');
    }
    dir = createProject('readme');
    linkModules(dir, { chokaq: REPO_ROOT });
    linkRepoModules(dir, ['zod', 'pg', '@types/node', '@types/pg']);
    // The Node.js variant tsc --init suggests in its comments, and library declarations checked.
    writeTsconfig(dir, { skipLibCheck: false, noEmit: true, lib: ['esnext'], types: ['node'] });
  });

  afterAll(() => removeProject(dir));

  it('type-checks every ts block against the built package', () => {
    const blocks = codeBlocks(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'), 'ts');
    expect(blocks.map((b) => b.heading)).toContain('Quick start');
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
    expect(typeCheck(dir)).toBe('');
  });
});
