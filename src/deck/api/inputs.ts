/** Small input conversions the routes share. */
import type { ActorOptions } from '../../chokaq.js';
import { invalid } from '../../util/check.js';
import type { Caller } from '../access.js';
import { bodyOf, type Route } from '../routes.js';

/** A Date from an ISO 8601 text in a JSON body. */
export function dateOf(value: unknown, field: string): Date {
  const date = typeof value === 'string' ? new Date(value) : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) {
    throw invalid('CHOKAQ_INVALID_ARGUMENT', field, 'an ISO 8601 time', value);
  }
  return date;
}

/** The actor of the caller (never taken from the body) and the body's reason. */
export function actorOptions(caller: Caller, reason: string | undefined): ActorOptions {
  return reason === undefined ? { actor: caller.actor } : { actor: caller.actor, reason };
}

/** The `reason` of a body that may hold nothing else. */
export function reasonOf(body: unknown): string | undefined {
  return bodyOf<{ reason?: string }>(body, ['reason']).reason;
}

/** Something an operator pauses and resumes by name (a queue, a schedule). */
export interface Pausable {
  pause(name: string, options: ActorOptions): Promise<unknown>;
  resume(name: string, options: ActorOptions): Promise<unknown>;
}

/** `POST <base>/:name/pause` and `…/resume`, with the caller's actor and the body's reason. */
export function pauseRoutes(base: string, target: Pausable): Route[] {
  return (['pause', 'resume'] as const).map((verb) => ({
    method: 'POST',
    path: `${base}/:name/${verb}`,
    access: 'operate',
    handle: ({ params, body, caller }) =>
      target[verb](params.name!, actorOptions(caller, reasonOf(body))),
  }));
}
