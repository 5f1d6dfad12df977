import { parseArgs } from 'node:util';
import {
  DEFAULT_BENCH_URL,
  SYSTEMS,
  WORKLOADS,
  type SystemName,
  type WorkloadName,
} from '../../bench/types.js';
import { CliError, type CliIo } from '../io.js';

/** Usage text of `chokaq bench`. */
export const BENCH_USAGE = `chokaq bench [--quick] [--only SYSTEM[,SYSTEM]] [--workloads W1,W2,…] [--json FILE] [--database-url URL]

Runs ChokaQ (postgres and embedded) and its peers pg-boss and graphile-worker (when installed)
on the same PostgreSQL and prints each workload's figures and ChokaQ ÷ best peer. Every run is
checked: each job ran once, all settled, nothing left. See docs/benchmarks.md.
  --quick              scaled-down counts for development and smoke runs (every row still printed)
  --only LIST          systems: ${SYSTEMS.join(', ')}
  --workloads LIST     W1, W2, W3, W4, W5 or full names (${WORKLOADS.join(', ')})
  --json FILE          also write {"rows":[{"workload","system","value","unit"},…],…} to FILE
  --database-url URL   default: CHOKAQ_DATABASE_URL, else ${DEFAULT_BENCH_URL} (created if missing)
  --help               print this text`;

/** Workload names by the short forms the CLI accepts. */
const WORKLOAD_ALIASES: Record<string, readonly WorkloadName[]> = {
  w1: ['W1-single', 'W1-bulk'],
  w2: ['W2-1p', 'W2-2p'],
  w3: ['W3-p99'],
  w4: ['W4-lag-p99'],
  w5: ['W5'],
};

/** `chokaq bench`. Resolves to the exit code: 1 when any run failed or was incorrect. */
export async function benchCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      workloads: { type: 'string' },
      json: { type: 'string' },
      'database-url': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
  });
  if (values.help) {
    io.stdout.write(`${BENCH_USAGE}\n`);
    return 0;
  }
  const systems = values.only === undefined ? [...SYSTEMS] : parseSystems(values.only);
  const workloads =
    values.workloads === undefined ? [...WORKLOADS] : parseWorkloads(values.workloads);
  const databaseUrl = values['database-url'] ?? io.env.CHOKAQ_DATABASE_URL ?? DEFAULT_BENCH_URL;
  // Loaded only for this command: the harness pulls in both providers and, lazily, the peers.
  const { runBench } = await import('../../bench/runner.js');
  const { ok } = await runBench(
    {
      systems,
      workloads,
      quick: values.quick,
      databaseUrl,
      jsonFile: values.json,
      command: ['chokaq', 'bench', ...args].join(' '),
    },
    { stdout: io.stdout, stderr: io.stderr },
  );
  return ok ? 0 : 1;
}

function list(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function parseSystems(text: string): SystemName[] {
  const out: SystemName[] = [];
  for (const name of list(text)) {
    const system = SYSTEMS.find((s) => s === name.toLowerCase());
    if (system === undefined) {
      throw new CliError(`unknown system '${name}'; expected ${SYSTEMS.join(', ')}`);
    }
    if (!out.includes(system)) out.push(system);
  }
  if (out.length === 0) throw new CliError('--only names no system');
  return SYSTEMS.filter((s) => out.includes(s));
}

function parseWorkloads(text: string): WorkloadName[] {
  const chosen = new Set<WorkloadName>();
  for (const name of list(text)) {
    const key = name.toLowerCase();
    const exact = WORKLOADS.find((w) => w.toLowerCase() === key);
    const expanded = exact === undefined ? WORKLOAD_ALIASES[key] : [exact];
    if (expanded === undefined) {
      throw new CliError(`unknown workload '${name}'; expected W1…W5 or ${WORKLOADS.join(', ')}`);
    }
    expanded.forEach((w) => chosen.add(w));
  }
  if (chosen.size === 0) throw new CliError('--workloads names no workload');
  return WORKLOADS.filter((w) => chosen.has(w));
}
