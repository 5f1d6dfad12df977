import { didYouMean } from './suggest.js';

/** What a CLI command may touch: output streams, the environment and a line of input. Injected so tests can capture them. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown; isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Reads one line the user types (or the next line of piped input), `null` when input ended
   * or `signal` aborted (input is then released, so the process can exit).
   * Default: none, so a command that needs an answer says how to go without (`--yes`).
   */
  readLine?: (signal?: AbortSignal) => Promise<string | null>;
}

/** A CLI failure with its exit code; the message is printed as one line. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 2,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The error for a missing or unknown subcommand of `command`. */
export function subcommandError(
  command: string,
  sub: string | undefined,
  known: readonly string[],
): CliError {
  return new CliError(
    sub === undefined
      ? `${command} needs a subcommand: ${known.join(', ')}; run 'chokaq ${command} --help'`
      : `unknown subcommand '${command} ${sub}'${didYouMean(sub, known)}; run 'chokaq ${command} --help'`,
  );
}
