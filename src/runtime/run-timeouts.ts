import type { CancelTimer, Clock } from '../util/clock.js';

/** A run with a time limit, as {@link RunTimeouts} sees it. */
export interface TimedRun {
  /** When the run times out, in ms since the epoch; `Infinity` once it timed out. */
  readonly deadlineMs: number;
  /** Aborts the run for its timeout (and moves its deadline to `Infinity`). */
  timedOut(): void;
}

/**
 * The time limits of the runs in progress, on one timer armed for the earliest deadline. A timer
 * per run cost every run a timer object, its place in Node's timer lists and a closure, and each
 * worker process the background compiles of that code on its path (docs/benchmarks.md). It keeps
 * no list of its own (one more collection to add each run to cost as much again): when the timer
 * fires it reads the runs in progress from `runs`, times out those past their deadline and arms
 * again for the earliest deadline left. Most runs end long before their deadline, so it fires
 * about once per time limit however many runs there are. It stays armed while no run is in
 * progress (it then fires, finds none and stops): stopped each time the last run ended, it was
 * armed again for nearly every run of a worker whose runs end before the next one starts (4,992
 * timers for 5,000 no-op jobs).
 */
export class RunTimeouts {
  private cancel: CancelTimer | undefined;
  /** The deadline the timer is armed for; `Infinity` when it is not armed. */
  private armedFor = Infinity;

  /** @param runs The runs in progress, read when the timer fires. */
  constructor(
    private readonly clock: Clock,
    private readonly runs: () => Iterable<TimedRun>,
  ) {}

  /** Times `run` out at its deadline, unless it is no longer among `runs` by then. */
  add(run: TimedRun): void {
    if (run.deadlineMs < this.armedFor) this.arm(run.deadlineMs);
  }

  /** Stops the timer; for a worker that stopped (a run added later arms it again). */
  clear(): void {
    this.cancel?.();
    this.cancel = undefined;
    this.armedFor = Infinity;
  }

  private arm(deadlineMs: number): void {
    this.cancel?.();
    this.armedFor = deadlineMs;
    this.cancel = this.clock.schedule(
      () => this.fire(),
      Math.max(0, deadlineMs - this.clock.now()),
    );
  }

  /** Times out every run past its deadline, then arms the timer for the earliest one left. */
  private fire(): void {
    this.cancel = undefined;
    this.armedFor = Infinity;
    const now = this.clock.now();
    const due: TimedRun[] = [];
    let next = Infinity;
    for (const run of this.runs()) {
      if (run.deadlineMs <= now) due.push(run);
      else if (run.deadlineMs < next) next = run.deadlineMs;
    }
    if (next !== Infinity) this.arm(next);
    for (const run of due) run.timedOut();
  }
}
