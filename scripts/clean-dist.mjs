// Empties dist/ before a build, so files of renamed or deleted modules (and source maps of
// earlier builds) never reach the package.
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

rmSync(join(dirname(fileURLToPath(import.meta.url)), '..', 'dist'), {
  recursive: true,
  force: true,
});
