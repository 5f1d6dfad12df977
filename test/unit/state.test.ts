import { describe, expect, it } from 'vitest';
import {
  canTransition,
  FAILURE_REASON_CODE,
  failureReasonOf,
  HOT_STATE_BY_CODE,
  HOT_STATE_CODE,
  TRANSITIONS,
  type Actor,
  type HotState,
  type JobState,
} from '../../src/job/state.js';

const STATES: readonly JobState[] = [
  'awaiting',
  'scheduled',
  'pending',
  'fetched',
  'processing',
  'succeeded',
  'dead',
];
const ACTORS: readonly Actor[] = ['producer', 'worker', 'recovery', 'operator'];

describe('canTransition', () => {
  it.each<[JobState | null, JobState | null, Actor]>([
    [null, 'pending', 'producer'],
    [null, 'scheduled', 'producer'],
    ['scheduled', 'pending', 'recovery'],
    ['processing', 'scheduled', 'worker'],
    ['fetched', 'scheduled', 'worker'],
    ['scheduled', 'dead', 'operator'],
    ['scheduled', 'dead', 'recovery'],
    ['scheduled', 'scheduled', 'operator'],
    ['scheduled', 'pending', 'operator'],
    ['pending', 'scheduled', 'operator'],
    ['pending', 'fetched', 'worker'],
    ['fetched', 'processing', 'worker'],
    ['fetched', 'pending', 'worker'],
    ['processing', 'succeeded', 'worker'],
    ['processing', 'pending', 'worker'],
    ['processing', 'dead', 'worker'],
    ['dead', 'pending', 'operator'],
    ['pending', 'pending', 'operator'],
    ['fetched', 'succeeded', 'worker'],
    ['processing', null, 'worker'],
    ['fetched', 'dead', 'recovery'],
    ['dead', null, 'operator'],
  ])('allows %s → %s by %s', (from, to, actor) => {
    expect(canTransition(from, to, actor)).toBe(true);
  });

  it.each<[JobState | null, JobState | null, Actor]>([
    ['pending', 'processing', 'operator'],
    ['pending', 'processing', 'worker'],
    ['pending', 'succeeded', 'worker'],
    ['succeeded', null, 'operator'],
    ['pending', null, 'worker'],
    ['processing', null, 'recovery'],
    ['fetched', 'succeeded', 'recovery'],
    ['processing', 'fetched', 'worker'],
    ['dead', 'succeeded', 'operator'],
    ['succeeded', 'dead', 'operator'],
    [null, 'fetched', 'producer'],
    [null, 'pending', 'worker'],
    ['pending', 'fetched', 'operator'],
    ['pending', 'pending', 'worker'],
    ['processing', 'succeeded', 'operator'],
    ['scheduled', 'fetched', 'worker'],
    ['scheduled', 'processing', 'worker'],
    ['scheduled', 'pending', 'worker'],
    ['dead', 'scheduled', 'operator'],
    ['pending', 'scheduled', 'recovery'],
  ])('forbids %s → %s by %s', (from, to, actor) => {
    expect(canTransition(from, to, actor)).toBe(false);
  });

  it('never lets a succeeded job move anywhere, whoever asks', () => {
    for (const to of STATES) {
      for (const actor of ACTORS) expect(canTransition('succeeded', to, actor)).toBe(false);
    }
  });

  it('lets only the operator move a dead job: resurrect it (pending, or awaiting when it died waiting), or edit it', () => {
    const allowed: string[] = [];
    for (const to of STATES) {
      for (const actor of ACTORS)
        if (canTransition('dead', to, actor)) allowed.push(`${to}/${actor}`);
    }
    expect(allowed).toEqual(['awaiting/operator', 'pending/operator', 'dead/operator']);
  });

  it('lets only the producer create jobs: pending, scheduled, awaiting, or dead by a dependency', () => {
    const allowed: string[] = [];
    for (const to of STATES) {
      for (const actor of ACTORS)
        if (canTransition(null, to, actor)) allowed.push(`${to}/${actor}`);
    }
    expect(allowed.sort()).toEqual([
      'awaiting/producer',
      'dead/producer',
      'pending/producer',
      'scheduled/producer',
    ]);
  });

  it('agrees with the TRANSITIONS table and allows nothing outside it', () => {
    const listed = new Set(TRANSITIONS.map((t) => `${String(t.from)}>${t.to}>${t.actor}`));
    let allowedCount = 0;
    for (const from of [null, ...STATES]) {
      for (const to of [...STATES, null]) {
        for (const actor of ACTORS) {
          const allowed = canTransition(from, to, actor);
          expect(allowed).toBe(listed.has(`${String(from)}>${to}>${actor}`));
          if (allowed) allowedCount += 1;
        }
      }
    }
    expect(allowedCount).toBe(listed.size);
    // 13 worker moves (claim or hand-off, start, release, circuit reschedule, circuit death,
    // succeed, succeed before the start was recorded, both without an archive row, delayed
    // retry, retry without delay or refund, die), 8 of recovery (the promotion among them, and
    // the retention of a batch's callback that can never fire), the
    // producer's four enqueues (due now, due later, awaiting, dead by a dependency), 10 operator
    // actions (a resurrect bringing back the jobs that died waiting among them), and the resolver's three decisions of an awaiting job (pending, scheduled, dead)
    // for each of worker, recovery and operator (the operator's awaiting → dead is also its
    // cancel of an awaiting job), the producer's event that wakes a job suspended in a wait, and
    // retention's removal of a batch's callback that can never fire.
    expect(listed.size).toBe(45);
  });

  it('gives every transition a trigger', () => {
    for (const t of TRANSITIONS) expect(t.trigger.trim()).not.toBe('');
  });
});

describe('hot state codes', () => {
  it('stores pending, fetched, processing, scheduled, awaiting as 0, 1, 2, 3, 4', () => {
    expect(HOT_STATE_CODE).toEqual({
      pending: 0,
      fetched: 1,
      processing: 2,
      scheduled: 3,
      awaiting: 4,
    });
  });

  it('round-trips every hot state through its code', () => {
    for (const state of Object.keys(HOT_STATE_CODE) as HotState[]) {
      expect(HOT_STATE_BY_CODE[HOT_STATE_CODE[state]]).toBe(state);
    }
    HOT_STATE_BY_CODE.forEach((state, code) => expect(HOT_STATE_CODE[state]).toBe(code));
    expect(HOT_STATE_BY_CODE).toHaveLength(5);
  });
});

describe('failureReasonOf', () => {
  it.each(Object.entries(FAILURE_REASON_CODE))('reads %s back from code %i', (name, code) => {
    expect(failureReasonOf(code)).toBe(name);
  });

  it('keeps the codes of the original system', () => {
    expect(FAILURE_REASON_CODE).toEqual({
      Cancelled: 1,
      Zombie: 2,
      Throttled: 5,
      Fatal: 6,
      Timeout: 7,
      Transient: 8,
      HeartbeatFailure: 9,
      RetryLifetimeExpired: 10,
      DependencyFailed: 11,
    });
  });

  it.each([0, 3, 4, 12, -1, 99, 1.5])('reads unknown or reserved code %d as Fatal', (code) => {
    expect(failureReasonOf(code)).toBe('Fatal');
  });

  it('gives every reason a distinct code', () => {
    const codes = Object.values(FAILURE_REASON_CODE);
    expect(new Set(codes).size).toBe(codes.length);
  });
});
