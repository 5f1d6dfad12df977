/**
 * The durable steps of a {@link performJob} run, without storage: a step replays a result given
 * in `steps` or calls its function, a sleep returns at once, and a wait takes the event given for
 * its topic in `events` or reports that none came. Names, results and arguments are checked as a
 * worker checks them.
 */
import { ChokaQError } from '../errors.js';
import type { EventResult, StepOptions, WaitForEventOptions } from '../job/context.js';
import {
  checkStepOptions,
  checkTopic,
  fromJson,
  MAX_WAIT_MS,
  StepNames,
  stepJson,
  type StepRunner,
  type StepSource,
} from '../runtime/steps.js';
import { toMs, type Duration } from '../util/duration.js';

/** What a {@link localSteps} run recorded, by step name, as read back from JSON. */
export type RecordedSteps = Record<string, unknown>;

/**
 * A {@link StepSource} for one `performJob` run. `replay`: results of steps a previous run
 * recorded (by name); `events`: the data of the event each topic's wait receives. Each step the
 * run records (a step's result, a wait's outcome) is added to `recorded`.
 */
export function localSteps(
  replay: Readonly<RecordedSteps>,
  events: Readonly<Record<string, unknown>>,
  recorded: RecordedSteps,
): StepSource {
  const names = new StepNames();
  const runner: StepRunner = {
    suspended: undefined,
    async step<T>(name: string, fn: () => T | Promise<T>, options?: StepOptions): Promise<T> {
      names.claim(name);
      if (checkStepOptions(options).client !== undefined) {
        throw new ChokaQError(
          'CHOKAQ_TRANSACTION_UNSUPPORTED',
          `performJob cannot record step "${name}" in a caller transaction (options.client)`,
          { field: 'options.client' },
        );
      }
      const value = Object.hasOwn(replay, name) ? replay[name] : await fn();
      const result = fromJson(stepJson(name, value));
      recorded[name] = result;
      return result as T;
    },
    sleep(name: string, duration: Duration): Promise<void> {
      return settled(() => {
        names.claim(name);
        toMs(duration, 'duration', { max: MAX_WAIT_MS });
      });
    },
    waitForEvent<T>(
      name: string,
      topic: string,
      options: WaitForEventOptions,
    ): Promise<EventResult<T>> {
      return settled(() => {
        names.claim(name);
        checkTopic(topic);
        toMs(options?.timeout, 'options.timeout', { max: MAX_WAIT_MS });
        const outcome: EventResult<T> = Object.hasOwn(events, topic)
          ? { received: true, data: fromJson(stepJson(name, events[topic])) as T }
          : { received: false };
        recorded[name] = outcome;
        return outcome;
      });
    },
  };
  return () => runner;
}

/** `work`'s result as a promise, which rejects (never throws) when `work` throws, as a worker's steps do. */
function settled<T>(work: () => T): Promise<T> {
  return new Promise((resolve) => resolve(work()));
}
