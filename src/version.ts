import { readFileSync } from 'node:fs';

/**
 * The version in this package's own package.json. The path is resolved from this module's file,
 * which sits one folder below the package root both in `src/` and in the built `dist/`, so the
 * answer is the same from a checkout, from `dist/` and from an installed copy.
 */
export function packageVersion(): string {
  const manifest = new URL('../package.json', import.meta.url);
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown };
  if (typeof version !== 'string') throw new Error(`no version in ${manifest.pathname}`);
  return version;
}
