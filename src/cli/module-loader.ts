/**
 * Loading a user's module (the one `chokaq worker <module>` runs, and the job definitions the
 * operator commands check payloads with): its default export, with every way that fails as one
 * line naming the module.
 */
import { existsSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ChokaQ } from '../chokaq.js';
import { ChokaQError } from '../errors.js';
import { CliError } from './io.js';

const TYPESCRIPT_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);

/** Node flags after which a TypeScript module may well import (a loader or type stripping). */
const LOADER_FLAG =
  /(?:^|\s)(?:--import|--loader|--experimental-loader|--require|-r|--experimental-strip-types|--experimental-transform-types)(?:[=\s]|$)/;

/** Imports the module's default export; every way this fails is one line naming the module. */
export async function loadWorkerModule(
  modulePath: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<unknown> {
  const file = resolve(modulePath);
  if (!existsSync(file)) throw new CliError(`worker module ${modulePath} not found (${file})`);
  const typescript = TYPESCRIPT_EXTENSIONS.has(extname(file).toLowerCase());
  if (typescript && !typeScriptMayLoad(env)) throw new CliError(typeScriptAdvice(modulePath));
  let loaded: { default?: unknown };
  try {
    loaded = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typescript && code === 'ERR_UNKNOWN_FILE_EXTENSION')
      throw new CliError(typeScriptAdvice(modulePath));
    const cause = error instanceof Error ? error.message : String(error);
    const errorCode = error instanceof ChokaQError ? ` (${error.code})` : '';
    throw new CliError(
      `cannot load worker module ${modulePath}: ${cause.split('\n')[0]}${errorCode}`,
      1,
    );
  }
  return loaded.default;
}

/** Whether this Node process can be expected to import TypeScript: built in, or a loader given. */
function typeScriptMayLoad(env: Readonly<Record<string, string | undefined>>): boolean {
  // `process.features.typescript` exists from Node 22.10 and is truthy when types are stripped.
  const features = process.features as { typescript?: unknown };
  if (features.typescript) return true;
  return LOADER_FLAG.test(process.execArgv.join(' ')) || LOADER_FLAG.test(env.NODE_OPTIONS ?? '');
}

function typeScriptAdvice(modulePath: string): string {
  return (
    `worker module ${modulePath} is TypeScript, which Node ${process.version} cannot import by ` +
    `itself: compile it to JavaScript first, or give node a TypeScript loader ` +
    `(NODE_OPTIONS='--import tsx' chokaq worker ${modulePath}; ` +
    `or --experimental-strip-types on Node 22.6 and later)`
  );
}

/** Duck-typed, so an instance made by another copy of the package is recognised too. */
export function isChokaQ(value: object): value is ChokaQ {
  return (
    value instanceof ChokaQ ||
    (typeof (value as ChokaQ).start === 'function' && typeof (value as ChokaQ).stop === 'function')
  );
}
