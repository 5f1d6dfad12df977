/**
 * A durable step in a job's timeline (docs/workflows.md#durable-steps): a step with its
 * recorded result, a sleep with its end, an event wait with its topic and timeout or outcome.
 */
import type { JobStep } from '../../../operator/timeline.js';
import { When } from './when.js';

/** Most characters of a step's result shown in the timeline; the JSON view shows all of it. */
const RESULT_WIDTH = 120;

/** One step, as an item of the timeline list. */
export function StepEntry({ step, at }: { step: JobStep; at: string | Date }) {
  const label = step.kind === 'run' ? 'Step' : step.kind === 'sleep' ? 'Sleep' : 'Wait';
  return (
    <li class={`tl-step tl-step-${step.state}`} data-step={step.name}>
      {label} <b>{step.name}</b>
      {step.topic !== null && (
        <>
          {' '}
          for an event on <code>{step.topic}</code>
        </>
      )}{' '}
      · {step.state}
      {step.state !== 'done' && step.wakeAt !== null && (
        <>
          {' '}
          until <When value={step.wakeAt} />
        </>
      )}{' '}
      · <When value={at} />
      {step.result !== null && (
        <div class="mono muted step-result">
          {step.result.length > RESULT_WIDTH
            ? `${step.result.slice(0, RESULT_WIDTH - 1)}…`
            : step.result}
        </div>
      )}
    </li>
  );
}
