/**
 * A throwaway consumer project in a temp folder, for tests that use ChokaQ the way a user does:
 * a `package.json` with `"type": "module"`, a `node_modules` whose entries are linked (or
 * unpacked) by the test, and the TypeScript settings `tsc --init` writes.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** The repository root. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Creates an empty ES module project folder; remove it with {@link removeProject}. */
export function createProject(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `chokaq-${prefix}-`));
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: `${prefix}-consumer`, private: true, type: 'module' }),
  );
  return dir;
}

/** Deletes a project folder (links are removed, never followed). */
export function removeProject(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Links `node_modules/<name>` to `target` for each entry, for example
 * `{ chokaq: REPO_ROOT }`. Scoped names get their scope folder.
 */
export function linkModules(dir: string, links: Readonly<Record<string, string>>): void {
  for (const [name, target] of Object.entries(links)) {
    const path = join(dir, 'node_modules', name);
    mkdirSync(dirname(path), { recursive: true });
    symlinkSync(target, path, 'dir');
  }
}

/** Links `node_modules/<name>` to the same package in this repository's `node_modules`. */
export function linkRepoModules(dir: string, names: readonly string[]): void {
  linkModules(dir, Object.fromEntries(names.map((n) => [n, join(REPO_ROOT, 'node_modules', n)])));
}

/**
 * Writes the settings of `tsc --init` (the installed TypeScript) to `tsconfig.init.json` and a
 * `tsconfig.json` that extends them with `compilerOptions` and checks the folder's `.ts` files.
 */
export function writeTsconfig(
  dir: string,
  compilerOptions: Readonly<Record<string, unknown>>,
): void {
  const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '--init'], { cwd: dir, timeout: 20_000, stdio: 'ignore' });
  renameSync(join(dir, 'tsconfig.json'), join(dir, 'tsconfig.init.json'));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ extends: './tsconfig.init.json', compilerOptions, include: ['*.ts'] }),
  );
}

/** The project's `tsconfig.json` as TypeScript reads it. */
function readConfig(dir: string): ts.ParsedCommandLine {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(dir, 'tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (parsed === undefined) throw new Error(`no tsconfig.json in ${dir}`);
  return parsed;
}

/** The compiler options of `tsc --init` after the project's overrides. */
export function effectiveOptions(dir: string): ts.CompilerOptions {
  return readConfig(dir).options;
}

/** Type-checks the project by its `tsconfig.json`; returns the compiler's messages ('' = none). */
export function typeCheck(dir: string): string {
  const parsed = readConfig(dir);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const diagnostics = [...parsed.errors, ...ts.getPreEmitDiagnostics(program)];
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => dir,
    getNewLine: () => '\n',
  });
}
