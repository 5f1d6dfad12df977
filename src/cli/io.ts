/** What a CLI command may touch: output streams and the environment. Injected so tests can capture them. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
  env: Readonly<Record<string, string | undefined>>;
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
