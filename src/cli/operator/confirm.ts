/** The typed confirmation of the commands that delete or move many rows. */
import { CliError, type CliIo } from '../io.js';

/** Asks for the count to be typed back; `false` on anything else, end of input or a stop. */
export async function confirmCount(
  count: number,
  verb: string,
  io: CliIo,
  stopSignal: AbortSignal | undefined,
): Promise<boolean> {
  if (io.readLine === undefined) {
    throw new CliError('cannot ask for a confirmation here; pass --yes to run without asking');
  }
  io.stderr.write(`type ${count} to ${verb} ${count === 1 ? 'it' : 'them'}: `);
  const stopped = new Promise<null>((resolve) => {
    if (stopSignal?.aborted) resolve(null);
    stopSignal?.addEventListener('abort', () => resolve(null), { once: true });
  });
  const answer = await Promise.race([io.readLine(), stopped]);
  if (answer === null) io.stderr.write('\n');
  return answer?.trim() === String(count);
}
