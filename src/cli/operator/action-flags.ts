/**
 * The flags every single-target operator command takes (`--actor`, `--reason`, `--json`, beside
 * the store's), its one positional argument, and the actor options they give the API.
 */
import { CliError } from '../io.js';
import { defaultActor } from './bulk-flow.js';
import { CONNECTION_OPTIONS } from './session.js';

/** `--actor NAME` (default: `cli:user@host`), `--reason TEXT`, `--json`, and the store's flags. */
export const SINGLE_ACTION_OPTIONS = {
  ...CONNECTION_OPTIONS,
  actor: { type: 'string' },
  reason: { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

/**
 * The one positional argument of a command.
 * @throws CliError `'<command> needs exactly one <what>'` when there is none or more than one.
 */
export function onlyOne(positionals: readonly string[], command: string, what: string): string {
  const [target] = positionals;
  if (target === undefined || positionals.length > 1) {
    throw new CliError(`${command} needs exactly one ${what}`);
  }
  return target;
}

/** The actor and reason the flags give, for the API's `ActorOptions`. */
export function actorOf(values: { actor?: string | undefined; reason?: string | undefined }): {
  actor: string;
  reason?: string;
} {
  return {
    actor: values.actor ?? defaultActor(),
    ...(values.reason === undefined ? {} : { reason: values.reason }),
  };
}
