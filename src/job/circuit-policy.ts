/**
 * Circuit breaker settings as a job definition or the ChokaQ options state them, and their
 * resolution to milliseconds. The breakers themselves run in `runtime/circuit-breaker.ts`.
 */
import { checkInteger, checkOptions } from '../util/check.js';
import { toMs, type Duration } from '../util/duration.js';

/**
 * Settings of one circuit (one job type key). Fields left out fall back to the ChokaQ-wide
 * `circuitBreaker` option, then to the built-in defaults below.
 */
export interface CircuitPolicy {
  /**
   * Consecutive failures (within `failureWindow` of each other) that open the circuit. An integer
   * from 1 to 1,000,000.
   * @default 5
   */
  failureThreshold?: number;
  /**
   * How long an open circuit rejects every start before a probe is allowed. More than 0.
   * @default '30s'
   */
  breakDuration?: Duration;
  /**
   * Probes allowed at once while half-open, and probe successes needed to close the circuit.
   * An integer from 1 to 1,000,000.
   * @default 1
   */
  halfOpenMaxCalls?: number;
  /**
   * How long half-open probes may stay outstanding (counted from the start of the half-open round)
   * before they are forgotten and a new probe may be granted. More than 0.
   * @default '30s'
   */
  probeTimeout?: Duration;
  /**
   * A failure arriving this long (or longer) after the previous failure restarts the count at 1
   * instead of adding to it. More than 0.
   * @default '60s'
   */
  failureWindow?: Duration;
}

/** A {@link CircuitPolicy} with every field set, durations in ms. */
export interface ResolvedCircuitPolicy {
  readonly failureThreshold: number;
  readonly breakMs: number;
  readonly halfOpenMaxCalls: number;
  readonly probeTimeoutMs: number;
  readonly failureWindowMs: number;
}

/** The built-in defaults listed on {@link CircuitPolicy}. */
const BUILT_IN: Required<CircuitPolicy> = {
  failureThreshold: 5,
  breakDuration: '30s',
  halfOpenMaxCalls: 1,
  probeTimeout: '30s',
  failureWindow: '60s',
};

const POLICY_KEYS = Object.keys(BUILT_IN) as (keyof CircuitPolicy)[];

/** Largest `failureThreshold` and `halfOpenMaxCalls`. */
const MAX_COUNT = 1_000_000;

/**
 * Checks that `policy` is a circuit policy object with known keys only.
 * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` or `CHOKAQ_UNKNOWN_OPTION` naming `field`.
 */
export function checkCircuitPolicy(
  policy: CircuitPolicy | undefined,
  field: string,
): CircuitPolicy {
  return checkOptions(policy, field, POLICY_KEYS);
}

/**
 * Resolves policy layers: each field from the last layer that sets it, else the built-in default,
 * then validated. `field` names the last layer in error messages.
 * @throws ChokaQError `CHOKAQ_INVALID_CONFIG` / `CHOKAQ_INVALID_DURATION` naming the field.
 */
export function resolveCircuitPolicy(
  layers: readonly CircuitPolicy[],
  field: string,
): ResolvedCircuitPolicy {
  const pick = <K extends keyof CircuitPolicy>(key: K): NonNullable<CircuitPolicy[K]> => {
    for (let i = layers.length - 1; i >= 0; i -= 1) {
      const value = layers[i]?.[key];
      if (value !== undefined) return value;
    }
    return BUILT_IN[key];
  };
  const positive = { min: 1 };
  const count = { min: 1, max: MAX_COUNT };
  return {
    failureThreshold: checkInteger(pick('failureThreshold'), `${field}.failureThreshold`, count),
    breakMs: toMs(pick('breakDuration'), `${field}.breakDuration`, positive),
    halfOpenMaxCalls: checkInteger(pick('halfOpenMaxCalls'), `${field}.halfOpenMaxCalls`, count),
    probeTimeoutMs: toMs(pick('probeTimeout'), `${field}.probeTimeout`, positive),
    failureWindowMs: toMs(pick('failureWindow'), `${field}.failureWindow`, positive),
  };
}
