/** Flag parsing of every command: `node:util`'s `parseArgs`, with errors of ChokaQ's own words. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { didYouMean } from './suggest.js';

/** An error of {@link parseFlags}; `main` prints it with a pointer to the command's help. */
export class FlagError extends Error {
  /** The code `parseArgs` gave, such as `ERR_PARSE_ARGS_UNKNOWN_OPTION`. */
  readonly code: string;

  constructor(message: string, code: string) {
    super(message);
    this.name = 'FlagError';
    this.code = code;
  }
}

/**
 * `parseArgs(config)` (strict, its default). An unknown flag is reported in one line of our own (the
 * same on every Node.js version), with the nearest flag the command takes.
 * @throws FlagError for an unknown flag, a missing value or an unexpected argument.
 */
export function parseFlags<T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (
      !(error instanceof Error) ||
      typeof code !== 'string' ||
      !code.startsWith('ERR_PARSE_ARGS_')
    )
      throw error;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const typed = /'(-[^'=]*)/.exec(error.message)?.[1] ?? '';
      const known = Object.keys(config.options ?? {}).map((name) => `--${name}`);
      throw new FlagError(`unknown option '${typed}'${didYouMean(typed, known)}`, code);
    }
    throw new FlagError(error.message.replace(/\s*\n\s*/g, ' ').replace(/\.$/, ''), code);
  }
}
