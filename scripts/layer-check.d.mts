// Types of scripts/layer-check.mjs, for test/unit/layer-check.test.ts.

/** An import the checks let pass: both paths relative to the project folder (`src/a/b.ts`). */
export interface AllowedImport {
  from: string;
  to: string;
}

/**
 * The problems of the sources under `root/src` against the layers of scripts/layers.mjs, one
 * sentence each: files in no layer, upward imports, import cycles, allowances no longer used.
 * Empty when the plan holds.
 *
 * @param allowed - the imports let pass; default `ALLOWED` of scripts/layers.mjs
 */
export declare function checkLayers(root: string, allowed?: readonly AllowedImport[]): string[];
