/**
 * The tag of one `vitest run`: test/helpers/leftover-guard.ts makes it and hands it to every test
 * file through vitest's `provide`/`inject`; every schema and database name a test makes carries
 * it (see `uniqueSchema` in pg.ts).
 */

/** The key under which the tag is provided. */
export const RUN_TAG_KEY = 'chokaqRunTag';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Tag of the current run, 6 lowercase letters and digits. */
    [RUN_TAG_KEY]: string;
  }
}

/** Whether `name` is a `chokaq_…` schema or database name made in the run tagged `tag`. */
export function madeInRun(name: string, tag: string): boolean {
  return name.startsWith('chokaq_') && name.includes(`_${tag}_`);
}
