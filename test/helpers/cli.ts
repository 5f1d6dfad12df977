/**
 * The CLI run in-process (`run` of src/cli/main.ts) with its output captured, as the CLI tests
 * drive it: no environment unless given, and no input to answer a prompt unless told.
 */
import type { CliIo } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';

/** What a run printed, and its exit code. */
export interface CliResult {
  code: number;
  out: string;
  err: string;
}

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** The environment the CLI sees. Default: none. */
  env?: Record<string, string>;
  /**
   * The line typed at a prompt, `null` for input that ended. Default: no input at all (a command
   * that needs an answer says how to go without, `--yes`).
   */
  answer?: string | null;
}

/** Runs the CLI with `args` in this process and captures what it prints. */
export async function runCli(
  args: readonly string[],
  options: RunCliOptions = {},
): Promise<CliResult> {
  let out = '';
  let err = '';
  const { answer } = options;
  const io: CliIo = {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    env: options.env ?? {},
    ...(answer === undefined ? {} : { readLine: () => Promise.resolve(answer) }),
  };
  const code = await run([...args], io);
  return { code, out, err };
}
