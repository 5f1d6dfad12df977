/**
 * Entry point of `npm run bench` (compiled to bench/dist/main.js): parses the flags, runs the
 * bench and exits with 0 when every run was correct, 1 when any failed or was incorrect (or the
 * bench could not run at all), 2 on a bad flag.
 */
import { BENCH_USAGE, BenchUsageError, parseBenchArgs } from './args.js';
import { runBench } from './runner.js';

async function main(args: readonly string[]): Promise<number> {
  try {
    const options = parseBenchArgs(args, process.env);
    if (options === 'help') {
      process.stdout.write(BENCH_USAGE);
      return 0;
    }
    const { ok } = await runBench(options, { stdout: process.stdout, stderr: process.stderr });
    return ok ? 0 : 1;
  } catch (error) {
    // One line, as the CLI prints it: a stack adds nothing to "connection refused".
    process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
    if (error instanceof BenchUsageError) {
      process.stderr.write(`\n${BENCH_USAGE}`);
      return 2;
    }
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
