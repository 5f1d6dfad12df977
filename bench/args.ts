/** The command line of `npm run bench`: its usage text and the parsing of its flags. */
import { parseArgs } from 'node:util';
import { SYSTEMS, labelOf, type SystemName } from './contenders.js';
import { DEFAULT_BENCH_URL, WORKLOADS, type BenchOptions, type WorkloadName } from './types.js';

/** The rows `--only` takes, one per line with the settings it names. */
const ROW_LIST = SYSTEMS.map((s) => `                         ${s.padEnd(25)} ${labelOf(s)}`).join(
  '\n',
);

/** Usage text of `npm run bench`. */
export const BENCH_USAGE = `npm run bench -- [--quick] [--only ROW[,ROW]] [--workloads W1,W2,…] [--json FILE] [--database-url URL]

Runs ChokaQ (postgres and embedded) and its peers pg-boss and graphile-worker (when installed),
each peer at its defaults and at its docs' throughput settings, on the same PostgreSQL, and prints
every row's figures, ChokaQ ÷ the best peer at its best settings, the W2 concurrency sweep and the
targets of issue 24. Every run is checked: each job ran once, all settled, nothing left. See
docs/benchmarks.md.
  --quick              scaled-down counts for development and smoke runs (every row still printed)
  --only LIST          rows (default: all):
${ROW_LIST}
  --workloads LIST     W1 … W10, sweep, or full names (${WORKLOADS.join(', ')})
  --json FILE          also write {"rows":[{"workload","system","value","unit"},…],…} to FILE
  --database-url URL   default: CHOKAQ_DATABASE_URL, else ${DEFAULT_BENCH_URL} (created if missing)
  --help               print this text
`;

/** A bad flag or flag value; the entry point prints its message and exits with 2. */
export class BenchUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BenchUsageError';
  }
}

/** Workload names by the short forms the command line accepts. */
const WORKLOAD_ALIASES: Record<string, readonly WorkloadName[]> = {
  w1: ['W1-single', 'W1-bulk'],
  w2: ['W2-1p', 'W2-2p', 'W2-4p'],
  w3: ['W3-p99'],
  w4: ['W4-lag-p99'],
  w5: ['W5'],
  w6: ['W6-operator'],
  w7: ['W7-observability'],
  w8: ['W8-capped'],
  w9: ['W9-keyed'],
  w10: ['W10-flow'],
  sweep: ['W2-sweep'],
};

/**
 * The bench options `args` (the flags after `npm run bench --`) ask for, or `'help'` for
 * `--help`. Without `--only` / `--workloads` every system / workload runs, in table order.
 *
 * @throws BenchUsageError on an unknown flag, an unknown system or workload, or an empty list.
 */
export function parseBenchArgs(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): BenchOptions | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        quick: { type: 'boolean', default: false },
        only: { type: 'string' },
        workloads: { type: 'string' },
        json: { type: 'string' },
        'database-url': { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    // node:util reports unknown flags and missing values as TypeErrors with a usable message.
    throw new BenchUsageError(error instanceof Error ? error.message : String(error));
  }
  if (values.help) return 'help';
  return {
    systems: values.only === undefined ? [...SYSTEMS] : parseSystems(values.only),
    workloads: values.workloads === undefined ? [...WORKLOADS] : parseWorkloads(values.workloads),
    quick: values.quick,
    databaseUrl: values['database-url'] ?? env.CHOKAQ_DATABASE_URL ?? DEFAULT_BENCH_URL,
    jsonFile: values.json,
    command: ['npm run bench', ...(args.length > 0 ? ['--', ...args] : [])].join(' '),
  };
}

function list(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function parseSystems(text: string): SystemName[] {
  const chosen = new Set<SystemName>();
  for (const name of list(text)) {
    const system = SYSTEMS.find((s) => s === name.toLowerCase());
    if (system === undefined) {
      throw new BenchUsageError(`unknown row '${name}'; expected ${SYSTEMS.join(', ')}`);
    }
    chosen.add(system);
  }
  if (chosen.size === 0) throw new BenchUsageError('--only names no row');
  return SYSTEMS.filter((s) => chosen.has(s));
}

function parseWorkloads(text: string): WorkloadName[] {
  const chosen = new Set<WorkloadName>();
  for (const name of list(text)) {
    const key = name.toLowerCase();
    const exact = WORKLOADS.find((w) => w.toLowerCase() === key);
    const expanded = exact === undefined ? WORKLOAD_ALIASES[key] : [exact];
    if (expanded === undefined) {
      throw new BenchUsageError(
        `unknown workload '${name}'; expected W1…W10, sweep or ${WORKLOADS.join(', ')}`,
      );
    }
    expanded.forEach((w) => chosen.add(w));
  }
  if (chosen.size === 0) throw new BenchUsageError('--workloads names no workload');
  return WORKLOADS.filter((w) => chosen.has(w));
}
