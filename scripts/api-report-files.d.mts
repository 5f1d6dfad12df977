// Types of scripts/api-report-files.mjs, for test/unit/api-report.test.ts.
import type { EntryPoint } from './api-surface.mjs';

/** The entry points of `root`'s package.json `exports`, named as users import them. */
export declare function entryPoints(root: string): EntryPoint[];

/**
 * Writes `api/<name>.txt` for each entry point and removes those of entry points that are gone.
 *
 * @returns the paths written, relative to `root`
 */
export declare function writeApiReport(root: string, entries: readonly EntryPoint[]): string[];

/**
 * Undefined when the committed report matches the declarations; else the message that names each
 * differing file with its first changed lines.
 */
export declare function checkApiReport(
  root: string,
  entries: readonly EntryPoint[],
): string | undefined;
