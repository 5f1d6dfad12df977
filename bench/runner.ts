/**
 * The bench runner: every selected workload for every selected system against one PostgreSQL
 * database, with progress on stderr, then the table (stdout) and, with `--json`, the document.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, platform, release, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { concurrencyOf, labelOf, type SystemName } from './contenders.js';
import { adminPool, checkpoint, dropSchema, ensureDatabase, serverInfo } from './db.js';
import { applicability } from './plan.js';
import { ServerCpu } from './server-cpu.js';
import {
  formatDetails,
  formatRatios,
  formatSkips,
  formatTable,
  toJson,
  type BenchReport,
} from './report.js';
import { formatSweep } from './sweep-report.js';
import { MissingPeerError, type SystemAdapter } from './systems/adapter.js';
import { loadAdapter } from './systems/index.js';
import { checkTargets, formatTargets } from './targets.js';
import type { BenchOptions, WorkloadName } from './types.js';
import {
  CorrectnessError,
  FULL_SCALE,
  QUICK_SCALE,
  type WorkloadContext,
  type WorkloadOutcome,
} from './workloads/common.js';
import { runEnqueue } from './workloads/w1-enqueue.js';
import { runDrain } from './workloads/w2-drain.js';
import { runSweep } from './workloads/w2-sweep.js';
import { runLatency } from './workloads/w3-latency.js';
import { runSteady } from './workloads/w4-steady.js';
import { runScale } from './workloads/w5-scale.js';
import { runOperator } from './workloads/w6-operator.js';
import { runObservability } from './workloads/w7-observability.js';
import { runCapped } from './workloads/w8-capped.js';
import { runKeyed } from './workloads/w9-keyed.js';
import { runFlow } from './workloads/w10-flow.js';

/** Output streams of the runner. */
export interface BenchIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown; isTTY?: boolean | undefined };
}

/** Schemas the adapters use in the bench database; dropped at the end. */
const BENCH_SCHEMAS = ['bench_chokaq', 'bench_pgboss', 'bench_graphile'];

/** Runs the bench; resolves to the report and whether every run was correct. */
export async function runBench(
  options: BenchOptions,
  io: BenchIo,
): Promise<{ report: BenchReport; ok: boolean }> {
  const scale = options.quick ? QUICK_SCALE : FULL_SCALE;
  await ensureDatabase(options.databaseUrl);
  const postgres = await serverInfo(options.databaseUrl);
  const serverCpu = await locateServer(options.databaseUrl);
  if (serverCpu === null) {
    io.stderr.write('note: the server\'s CPU cannot be read here; no "PostgreSQL CPU per job"\n');
  }
  const tempRoot = mkdtempSync(join(tmpdir(), 'chokaq-bench-'));
  const report: BenchReport = { rows: [], details: [], skipped: [], meta: {} };
  let ok = true;
  const adapters = new Map<SystemName, SystemAdapter>();
  const progress = new Progress(io.stderr);
  try {
    for (const system of options.systems) {
      try {
        adapters.set(
          system,
          await loadAdapter(system, {
            databaseUrl: options.databaseUrl,
            dataDir: join(tempRoot, 'embedded'),
          }),
        );
      } catch (error) {
        if (!(error instanceof MissingPeerError)) throw error;
        const reason = `${error.packageName} is not installed; its rows are skipped (it is a dev dependency: npm install -D ${error.packageName})`;
        report.skipped.push({ workload: '*', system, reason });
        io.stderr.write(`note: ${reason}\n`);
      }
    }
    const plan: [WorkloadName, SystemName][] = [];
    for (const workload of options.workloads) {
      for (const system of options.systems) {
        if (!adapters.has(system)) continue;
        const verdict = applicability(system, workload, scale);
        if (verdict.run) plan.push([workload, system]);
        else if (!verdict.quiet) report.skipped.push({ workload, system, reason: verdict.reason });
      }
    }
    io.stderr.write(
      `bench: ${plan.length} runs${options.quick ? ' (--quick)' : ''} on ${describeUrl(options.databaseUrl)}\n`,
    );
    let checkpoints = true;
    for (const [k, [workload, system]] of plan.entries()) {
      const adapter = adapters.get(system) as SystemAdapter;
      progress.begin(`[${k + 1}/${plan.length}] ${workload} ${labelOf(system)}`);
      // Every run starts with the server's dirty pages written: none pays for the run before it
      // (a checkpoint that the earlier runs' WAL set off would otherwise land in whichever ran next).
      if (checkpoints && !(await checkpoint(options.databaseUrl))) {
        checkpoints = false;
        io.stderr.write('note: this role may not CHECKPOINT; runs start without one\n');
      }
      const ctx: WorkloadContext = {
        system,
        adapter,
        scale,
        concurrency: concurrencyOf(system, scale.concurrency),
        databaseUrl: options.databaseUrl,
        progress,
        earlier: report.rows,
        serverCpu,
      };
      try {
        const outcome = await runWorkload(workload, ctx);
        report.rows.push(...outcome.rows);
        report.details.push(...outcome.details);
        for (const reason of outcome.failures ?? []) {
          ok = false;
          report.skipped.push({ workload, system, reason });
        }
        progress.end(
          outcome.rows.map((r) => `${formatNumber(r.value)} ${r.unit}`).join(', ') + ' ✓ checked',
        );
      } catch (error) {
        ok = false;
        const kind = error instanceof CorrectnessError ? 'INCORRECT' : 'FAILED';
        const message = error instanceof Error ? error.message : String(error);
        report.skipped.push({ workload, system, reason: `${kind}: ${message}` });
        progress.end(`${kind}: ${message}`);
      }
    }
  } finally {
    for (const adapter of adapters.values()) await adapter.close().catch(() => undefined);
    await cleanup(options.databaseUrl).catch(() => undefined);
    rmSync(tempRoot, { recursive: true, force: true });
  }
  report.meta = {
    date: new Date().toISOString(),
    command: options.command,
    quick: options.quick,
    scale,
    machine: {
      cpu: cpus()[0]?.model ?? 'unknown',
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      os: `${platform()} ${release()}`,
      node: process.version,
    },
    postgres,
    versions: versions(),
    settings: Object.fromEntries([...adapters].map(([system, a]) => [labelOf(system), a.settings])),
  };
  writeReport(report, io);
  if (options.jsonFile !== undefined) {
    writeFileSync(options.jsonFile, toJson(report));
    io.stdout.write(`wrote ${options.jsonFile}\n`);
  }
  return { report, ok };
}

/** Prints the tables: figures, ratios, the sweep, the targets, details and skipped rows. */
function writeReport(report: BenchReport, io: BenchIo): void {
  const section = (title: string, text: string): void => {
    if (text !== '') io.stdout.write(`\n${title}\n${text}`);
  };
  section('figures of every row:', formatTable(report.rows));
  section(
    'ChokaQ ÷ the best peer at its best settings (the best figure of any peer row, defaults or its docs’ throughput settings; jobs/s and % of cap: higher is better, ms: lower is better):',
    formatRatios(report.rows),
  );
  section(
    'W2 concurrency sweep (jobs/s; ChokaQ at its defaults, each peer at its best settings, all at the same concurrency per process):',
    formatSweep(report.rows),
  );
  section(
    'targets of issue 24 (required, then stretch):',
    formatTargets(checkTargets(report.rows)),
  );
  section('details:', formatDetails(report.details));
  section('skipped:', formatSkips(report.skipped));
}

function runWorkload(workload: WorkloadName, ctx: WorkloadContext): Promise<WorkloadOutcome> {
  switch (workload) {
    case 'W1-single':
      return runEnqueue(ctx, 'single');
    case 'W1-bulk':
      return runEnqueue(ctx, 'bulk');
    case 'W2-1p':
    case 'W2-2p':
    case 'W2-4p':
      return runDrain(ctx, workload);
    case 'W3-p99':
      return runLatency(ctx);
    case 'W4-lag-p99':
      return runSteady(ctx);
    case 'W5':
      return runScale(ctx);
    case 'W8-capped':
      return runCapped(ctx);
    case 'W9-keyed':
      return runKeyed(ctx);
    case 'W10-flow':
      return runFlow(ctx);
    case 'W2-sweep':
      return runSweep(ctx);
    case 'W6-operator':
      return runOperator(ctx);
    case 'W7-observability':
      return runObservability(ctx);
  }
}

/** Drops the bench schemas (the W5 history alone is over a million rows). */
/** The PostgreSQL server's CPU if it can be read from this machine (see server-cpu.ts). */
async function locateServer(databaseUrl: string): Promise<ServerCpu | null> {
  const pool = adminPool(databaseUrl);
  try {
    return await ServerCpu.locate(pool, databaseUrl);
  } finally {
    await pool.end();
  }
}

async function cleanup(databaseUrl: string): Promise<void> {
  const pool = adminPool(databaseUrl);
  try {
    for (const schema of BENCH_SCHEMAS) await dropSchema(pool, schema);
  } finally {
    await pool.end();
  }
}

function versions(): Record<string, string> {
  const require = createRequire(import.meta.url);
  const out: Record<string, string> = {};
  const read = (name: string, path: string): void => {
    try {
      out[name] = (require(path) as { version: string }).version;
    } catch {
      // A package whose exports hide package.json: find it above its entry point.
      try {
        let dir = dirname(require.resolve(name));
        while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
        out[name] = (
          JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }
        ).version;
      } catch {
        out[name] = 'not installed';
      }
    }
  };
  read('chokaq', 'chokaq/package.json');
  read('pg-boss', 'pg-boss/package.json');
  read('graphile-worker', 'graphile-worker/package.json');
  read('pg', 'pg/package.json');
  read('@electric-sql/pglite', '@electric-sql/pglite/package.json');
  return out;
}

function formatNumber(value: number): string {
  return Math.abs(value) >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(2);
}

function describeUrl(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

/** Progress on stderr: one rewritten line on a terminal, else a line every few seconds. */
class Progress {
  private label = '';
  private lastLine = 0;

  constructor(private readonly out: BenchIo['stderr']) {}

  begin(label: string): void {
    this.label = label;
    this.lastLine = 0;
    this.status('starting');
  }

  status(text: string): void {
    if (this.out.isTTY) {
      this.out.write(`\r\x1b[K${this.label}: ${text}`);
      return;
    }
    if (Date.now() - this.lastLine < 3000) return;
    this.lastLine = Date.now();
    this.out.write(`${this.label}: ${text}\n`);
  }

  end(result: string): void {
    this.out.write(`${this.out.isTTY ? '\r\x1b[K' : ''}${this.label}: ${result}\n`);
  }
}
