import { ChokaQError } from '../errors.js';
import {
  checkCircuitPolicy,
  resolveCircuitPolicy,
  type CircuitPolicy,
  type ResolvedCircuitPolicy,
} from '../job/circuit-policy.js';
import type { Clock } from '../util/clock.js';

/**
 * State of one circuit: `closed` permits every start, `open` rejects every start, `half-open`
 * lets a limited number of probes through.
 */
export type CircuitState = 'closed' | 'open' | 'half-open';

/** What happened to a circuit; reported through {@link CircuitBreakersOptions.onEvent}. */
export type CircuitEventName =
  | 'opened'
  | 'closed'
  | 'half_opened'
  | 'probe_acquired'
  | 'rejected'
  | 'permit_released'
  | 'probe_expired';

/** One circuit event: the (lower-case) key, the state after the event, and the event itself. */
export interface CircuitEvent {
  /** Circuit key in lower case. */
  key: string;
  /** State of the circuit after the event. */
  state: CircuitState;
  /** What happened. */
  event: CircuitEventName;
}

/** Options of {@link CircuitBreakers}. */
export interface CircuitBreakersOptions {
  /** Source of the current time; the breakers never start timers. */
  clock: Clock;
  /**
   * Policy of every key without its own entry in `policies`; missing fields take the built-in
   * defaults.
   * @default {}
   */
  defaultPolicy?: CircuitPolicy;
  /**
   * Policies per circuit key (job type key), matched case-insensitively. Missing fields take the
   * value of `defaultPolicy`, then the built-in default.
   * @default {}
   */
  policies?: Record<string, CircuitPolicy>;
  /**
   * Called synchronously for every state change, probe, rejection and release. Errors it throws are
   * swallowed so a faulty listener cannot leave a circuit half-updated.
   * @default undefined (no listener)
   */
  onEvent?: (event: CircuitEvent) => void;
}

/**
 * Permission to start one job, returned by {@link CircuitBreakers.acquire}. Report exactly one
 * outcome with it: `success`, `failure` or `release`. Further reports with the same permit, and
 * reports with a permit from an earlier generation of its circuit, are ignored.
 */
export interface CircuitPermit {
  /** Circuit key in lower case. */
  readonly key: string;
}

/** One row of {@link CircuitBreakers.stats}. */
export interface CircuitStats {
  /** Circuit key in lower case. */
  key: string;
  /** Current state (an open circuit stays `open` here until the next `acquire` flips it). */
  state: CircuitState;
  /** Failures counted since the last success or close. */
  failureCount: number;
  /** When an open circuit will allow a probe (opened at + break duration); `null` unless open. */
  resetAt: Date | null;
}

interface Circuit {
  readonly key: string;
  readonly policy: ResolvedCircuitPolicy;
  state: CircuitState;
  /** Bumped on every state change and on probe expiry; permits of older generations are stale. */
  generation: number;
  failureCount: number;
  lastFailureAt: number | null;
  openedAt: number;
  halfOpenStartedAt: number;
  outstandingProbes: number;
  probeSuccesses: number;
}

/**
 * A permit as handed out: it carries its circuit, generation and kind itself, and whether it was
 * reported (one object per job, where a frozen permit, its details and a `WeakMap` entry were).
 */
class Permit implements CircuitPermit {
  reported = false;

  constructor(
    readonly key: string,
    readonly circuit: Circuit,
    readonly generation: number,
    readonly probe: boolean,
  ) {}
}

/**
 * Per-key circuit breakers (one circuit per job type key, created on first use). Pure logic: time
 * comes from the injected clock and nothing happens between calls.
 *
 * The worker calls {@link acquire} before starting a job and reports the outcome with the permit:
 * {@link success}, {@link failure} for a transient or throttled handler failure, or {@link release}
 * when there is no outcome (lost lease, shutdown, cancellation, timeout, fatal payload error).
 * Fatal errors never open a circuit: one poison payload must not block every job of its type.
 */
export class CircuitBreakers {
  private readonly clock: Clock;
  private readonly defaultPolicy: ResolvedCircuitPolicy;
  private readonly policies = new Map<string, ResolvedCircuitPolicy>();
  private readonly circuits = new Map<string, Circuit>();
  private readonly onEvent: ((event: CircuitEvent) => void) | undefined;

  /**
   * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` naming the offending policy field when a count is
   *   not an integer of at least 1, a duration is not more than 0, or two policy keys differ only in
   *   case.
   */
  constructor(options: CircuitBreakersOptions) {
    this.clock = options.clock;
    this.onEvent = options.onEvent;
    const base = checkCircuitPolicy(options.defaultPolicy, 'defaultPolicy');
    this.defaultPolicy = resolveCircuitPolicy([base], 'defaultPolicy');
    for (const [rawKey, policy] of Object.entries(options.policies ?? {})) {
      const key = rawKey.toLowerCase();
      if (this.policies.has(key)) {
        throw new ChokaQError(
          'CHOKAQ_INVALID_CONFIG',
          `policies has two entries for circuit key '${key}' (keys are case-insensitive)`,
        );
      }
      const path = `policies.${rawKey}`;
      this.policies.set(key, resolveCircuitPolicy([base, checkCircuitPolicy(policy, path)], path));
    }
  }

  /**
   * Asks to start a job of circuit `key` (case-insensitive).
   *
   * Closed: always granted. Open: rejected until the break has elapsed; the first call after that
   * turns the circuit half-open and is granted as a probe. Half-open: granted as a probe while fewer
   * than `halfOpenMaxCalls` probes are outstanding; probes outstanding for `probeTimeout` since the
   * round began are forgotten first (`probe_expired`).
   * @returns The permit, or `null` when rejected (reschedule the job).
   */
  acquire(key: string): CircuitPermit | null {
    const circuit = this.circuit(key);
    const now = this.clock.now();
    switch (circuit.state) {
      case 'closed':
        return this.grant(circuit, false);
      case 'open':
        if (now < circuit.openedAt + circuit.policy.breakMs) {
          this.emit(circuit, 'rejected');
          return null;
        }
        this.enter(circuit, 'half-open', now);
        this.emit(circuit, 'half_opened');
        return this.grantProbe(circuit);
      case 'half-open':
        if (
          circuit.outstandingProbes > 0 &&
          now >= circuit.halfOpenStartedAt + circuit.policy.probeTimeoutMs
        ) {
          circuit.generation += 1;
          circuit.halfOpenStartedAt = now;
          circuit.outstandingProbes = 0;
          circuit.probeSuccesses = 0;
          this.emit(circuit, 'probe_expired');
        }
        if (circuit.outstandingProbes >= circuit.policy.halfOpenMaxCalls) {
          this.emit(circuit, 'rejected');
          return null;
        }
        return this.grantProbe(circuit);
    }
  }

  /**
   * Reports that the job of `permit` succeeded. Closed: resets the failure count. Half-open: counts
   * a probe success; `halfOpenMaxCalls` of them close the circuit.
   */
  success(permit: CircuitPermit): void {
    const info = this.settle(permit);
    if (!info) return;
    const { circuit } = info;
    if (circuit.state === 'closed') {
      circuit.failureCount = 0;
      return;
    }
    if (circuit.state !== 'half-open' || !info.probe) return;
    circuit.outstandingProbes -= 1;
    circuit.probeSuccesses += 1;
    if (circuit.probeSuccesses >= circuit.policy.halfOpenMaxCalls) {
      this.enter(circuit, 'closed', this.clock.now());
      this.emit(circuit, 'closed');
    }
  }

  /**
   * Reports a transient or throttled handler failure. Closed: adds to the failure count (restarting
   * at 1 when the previous failure is `failureWindow` or more ago) and opens the circuit at
   * `failureThreshold`. Half-open: a probe failure reopens the circuit with a fresh break.
   * Do not report fatal (payload) errors here; use {@link release}.
   */
  failure(permit: CircuitPermit): void {
    const info = this.settle(permit);
    if (!info) return;
    const { circuit } = info;
    const now = this.clock.now();
    if (circuit.state === 'closed') {
      const restart =
        circuit.lastFailureAt !== null &&
        now - circuit.lastFailureAt >= circuit.policy.failureWindowMs;
      circuit.failureCount = restart ? 1 : circuit.failureCount + 1;
      circuit.lastFailureAt = now;
      if (circuit.failureCount >= circuit.policy.failureThreshold) {
        this.enter(circuit, 'open', now);
        this.emit(circuit, 'opened');
      }
      return;
    }
    if (circuit.state !== 'half-open' || !info.probe) return;
    circuit.failureCount += 1;
    circuit.lastFailureAt = now;
    this.enter(circuit, 'open', now);
    this.emit(circuit, 'opened');
  }

  /**
   * Gives the permit back without an outcome (lost lease, shutdown, cancellation, timeout, fatal
   * payload error): nothing is counted, and a half-open probe slot becomes free at once.
   */
  release(permit: CircuitPermit): void {
    const info = this.settle(permit);
    if (!info) return;
    const { circuit } = info;
    if (info.probe) circuit.outstandingProbes -= 1;
    this.emit(circuit, 'permit_released');
  }

  /** Every circuit used so far, in order of first use. */
  stats(): CircuitStats[] {
    return [...this.circuits.values()].map((circuit) => ({
      key: circuit.key,
      state: circuit.state,
      failureCount: circuit.failureCount,
      resetAt:
        circuit.state === 'open' ? new Date(circuit.openedAt + circuit.policy.breakMs) : null,
    }));
  }

  private circuit(rawKey: string): Circuit {
    const key = rawKey.toLowerCase();
    let circuit = this.circuits.get(key);
    if (!circuit) {
      circuit = {
        key,
        policy: this.policies.get(key) ?? this.defaultPolicy,
        state: 'closed',
        generation: 0,
        failureCount: 0,
        lastFailureAt: null,
        openedAt: 0,
        halfOpenStartedAt: 0,
        outstandingProbes: 0,
        probeSuccesses: 0,
      };
      this.circuits.set(key, circuit);
    }
    return circuit;
  }

  /** Moves to a new state and generation; permits handed out before become stale. */
  private enter(circuit: Circuit, state: CircuitState, now: number): void {
    circuit.state = state;
    circuit.generation += 1;
    circuit.outstandingProbes = 0;
    circuit.probeSuccesses = 0;
    if (state === 'open') circuit.openedAt = now;
    if (state === 'half-open') circuit.halfOpenStartedAt = now;
    if (state === 'closed') {
      circuit.failureCount = 0;
      circuit.lastFailureAt = null;
    }
  }

  private grantProbe(circuit: Circuit): CircuitPermit {
    circuit.outstandingProbes += 1;
    const permit = this.grant(circuit, true);
    this.emit(circuit, 'probe_acquired');
    return permit;
  }

  private grant(circuit: Circuit, probe: boolean): CircuitPermit {
    return new Permit(circuit.key, circuit, circuit.generation, probe);
  }

  /**
   * Consumes a permit; `undefined` when not one of ours, already reported or from an older
   * generation.
   */
  private settle(permit: CircuitPermit): Permit | undefined {
    if (!(permit instanceof Permit) || permit.reported) return undefined;
    permit.reported = true;
    return permit.generation === permit.circuit.generation ? permit : undefined;
  }

  private emit(circuit: Circuit, event: CircuitEventName): void {
    if (!this.onEvent) return;
    try {
      this.onEvent({ key: circuit.key, state: circuit.state, event });
    } catch {
      // A listener must not break the breaker; see CircuitBreakersOptions.onEvent.
    }
  }
}
