// Types of scripts/api-surface.mjs, for test/unit/api-report.test.ts.

/** An entry point: its import name and its declaration file, relative to the project folder. */
export interface EntryPoint {
  name: string;
  types: string;
}

/**
 * The report of each entry point, in the order given: its exports sorted by name, each with its
 * kind and its declaration as TypeScript prints it, then the package's declarations they name
 * without exporting them. Every text ends in a newline.
 *
 * @throws Error when a declaration file is missing or is not a module
 */
export declare function apiSurface(
  root: string,
  entries: readonly EntryPoint[],
): { name: string; text: string }[];
