/**
 * The rows of the bench: every system under test at the settings a row names. ChokaQ runs at its
 * defaults (and once at concurrency 128); each peer runs at its defaults and at the settings its
 * own docs give for throughput. Pure data and rules, unit-tested with the report.
 */

/** Row ids, in table order; `--only` takes them. */
export const SYSTEMS = [
  'chokaq-postgres',
  'chokaq-postgres-c128',
  'chokaq-postgres-nohistory',
  'chokaq-embedded',
  'pg-boss',
  'pg-boss-batch500',
  'graphile-worker',
  'graphile-worker-batched',
] as const;
export type SystemName = (typeof SYSTEMS)[number];

/** The package a row runs. */
export type Family = 'chokaq' | 'pg-boss' | 'graphile-worker';

/** What a row is compared as: ChokaQ at defaults, ChokaQ tuned, a peer at defaults or tuned. */
export type Role = 'chokaq' | 'chokaq-tuned' | 'peer-defaults' | 'peer-tuned';

/** What the report and the runner need to know about a row. */
export interface Contender {
  /** The row name printed in the tables: the system and the settings that differ. */
  label: string;
  family: Family;
  role: Role;
  /** Jobs run at once per worker process when the row fixes it (else the run's concurrency). */
  concurrency?: number;
}

/** Every row by id. */
export const CONTENDERS: Readonly<Record<SystemName, Contender>> = {
  'chokaq-postgres': { label: 'chokaq-postgres (defaults)', family: 'chokaq', role: 'chokaq' },
  'chokaq-postgres-c128': {
    label: 'chokaq-postgres (concurrency 128)',
    family: 'chokaq',
    role: 'chokaq-tuned',
    concurrency: 128,
  },
  'chokaq-postgres-nohistory': {
    label: 'chokaq-postgres (keepSucceeded: false)',
    family: 'chokaq',
    role: 'chokaq-tuned',
  },
  'chokaq-embedded': { label: 'chokaq-embedded (defaults)', family: 'chokaq', role: 'chokaq' },
  'pg-boss': { label: 'pg-boss (defaults)', family: 'pg-boss', role: 'peer-defaults' },
  'pg-boss-batch500': {
    label: 'pg-boss (batchSize 500, burst, notify)',
    family: 'pg-boss',
    role: 'peer-tuned',
  },
  'graphile-worker': {
    label: 'graphile-worker (defaults)',
    family: 'graphile-worker',
    role: 'peer-defaults',
  },
  'graphile-worker-batched': {
    label: 'graphile-worker (localQueue 500, batch delays 0)',
    family: 'graphile-worker',
    role: 'peer-tuned',
  },
};

/** ChokaQ rows whose ratio to the best peer is reported (defaults first). */
export const CHOKAQ_SYSTEMS: readonly SystemName[] = SYSTEMS.filter(
  (s) => CONTENDERS[s].family === 'chokaq',
);

/** Every peer row, defaults and tuned: "best peer" is the best figure among them. */
export const PEERS: readonly SystemName[] = SYSTEMS.filter(
  (s) => CONTENDERS[s].family !== 'chokaq',
);

/** The peer rows at the settings their docs give for throughput (the sweep runs these). */
export const TUNED_PEERS: readonly SystemName[] = SYSTEMS.filter(
  (s) => CONTENDERS[s].role === 'peer-tuned',
);

/** The rows of the W2 concurrency sweep: ChokaQ at defaults and each peer at its best settings. */
export const SWEEP_SYSTEMS: readonly SystemName[] = ['chokaq-postgres', ...TUNED_PEERS];

/** The row name of `system`. */
export function labelOf(system: SystemName): string {
  return CONTENDERS[system].label;
}

/** Jobs run at once per worker process by `system` when the run's concurrency is `runDefault`. */
export function concurrencyOf(system: SystemName, runDefault: number): number {
  return CONTENDERS[system].concurrency ?? runDefault;
}
