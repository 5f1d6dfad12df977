/**
 * `chokaq bench` as the CLI sees it. The benchmark harness (dist/bench) drives pg-boss and
 * graphile-worker, which are development dependencies, so it is built in a clone of the
 * repository but not published; the command is loaded only where the harness exists.
 */
import { CliError, type CliIo } from '../io.js';

/** Synopsis of `chokaq bench` in the CLI's help; `chokaq bench --help` lists every option. */
export const BENCH_SYNOPSIS = `chokaq bench [--quick] [--only SYSTEMS] [--workloads W1,W2,…] [--json FILE] [--database-url URL]

Compares ChokaQ with pg-boss and graphile-worker on the same PostgreSQL. Runs in a clone of the
repository (npm run bench; chokaq bench --help lists every option there); the published package
does not include the harness.`;

/**
 * Runs `chokaq bench` with `args`; resolves to the exit code.
 * @throws CliError when the harness is not there (an installed package).
 */
export async function benchIfPresent(args: string[], io: CliIo): Promise<number> {
  let benchCommand: (args: string[], io: CliIo) => Promise<number>;
  try {
    ({ benchCommand } = await import('./bench.js'));
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new CliError(
      'chokaq bench is not part of the published package; run `npm run bench` in a clone of the repository (see docs/benchmarks.md)',
    );
  }
  return benchCommand(args, io);
}
