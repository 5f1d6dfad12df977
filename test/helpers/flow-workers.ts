/**
 * Starts the worker processes of test/pg/flow-control.test.ts (test/fixtures/flow-worker.mjs),
 * lets them go at once and collects what each recorded. Every wait is bounded; a worker still
 * alive at the end is killed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_DATABASE_URL } from './pg.js';
import { withTimeout } from './wait.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FIXTURE = join(ROOT, 'test/fixtures/flow-worker.mjs');
const READY_LIMIT_MS = 30_000;
const EXIT_LIMIT_MS = 150_000;

/** One handler run: job id, its payload's key, start and end (wall clock, ms). */
export type FlowRun = [id: string, key: string, startMs: number, endMs: number];

/** What one worker process ended with. */
export interface FlowWorkerResult {
  code: number | null;
  stderr: string;
  drained: boolean;
  runs: FlowRun[];
}

/** One started worker process. */
interface FlowWorker {
  child: ChildProcess;
  out: string;
  stderr: string;
  ready: Promise<void>;
  exited: Promise<number | null>;
}

function spawnWorker(index: number, schema: string, dir: string): FlowWorker {
  const out = join(dir, `flow-${index}-${Date.now()}.json`);
  const child = spawn(process.execPath, [FIXTURE], {
    cwd: ROOT,
    env: {
      ...process.env,
      CHOKAQ_FLOW_URL: TEST_DATABASE_URL,
      CHOKAQ_FLOW_SCHEMA: schema,
      CHOKAQ_FLOW_OUT: out,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const worker: FlowWorker = {
    child,
    out,
    stderr: '',
    ready: Promise.resolve(),
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
  };
  let stdout = '';
  worker.ready = new Promise<void>((resolve, reject) => {
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      stdout += chunk;
      if (stdout.includes('READY\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before READY`)));
  });
  worker.ready.catch(() => undefined); // observed by runFlowWorkers
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (chunk: string) => {
    if (worker.stderr.length < 20_000) worker.stderr += chunk;
  });
  child.stdin?.on('error', () => undefined);
  return worker;
}

/**
 * Runs `count` worker processes on `schema` until they drained the flow queues: starts them,
 * waits for all to be ready, sends GO, calls `whileRunning` (sampling, late enqueues) and
 * returns each worker's result.
 */
export async function runFlowWorkers(
  count: number,
  schema: string,
  dir: string,
  whileRunning: (running: () => boolean) => Promise<void>,
): Promise<FlowWorkerResult[]> {
  const workers = Array.from({ length: count }, (_, i) => spawnWorker(i, schema, dir));
  try {
    await withTimeout(Promise.all(workers.map((w) => w.ready)), READY_LIMIT_MS, 'workers ready');
    for (const worker of workers) worker.child.stdin?.write('GO\n');
    let alive = count;
    const exits = Promise.all(
      workers.map((w) =>
        w.exited.then((code) => {
          alive -= 1;
          return code;
        }),
      ),
    );
    await whileRunning(() => alive > 0);
    const codes = await withTimeout(exits, EXIT_LIMIT_MS, 'workers exit');
    return workers.map((worker, i) => {
      const report = existsSync(worker.out)
        ? (JSON.parse(readFileSync(worker.out, 'utf8')) as { runs: FlowRun[]; drained: boolean })
        : { runs: [], drained: false };
      return { code: codes[i] ?? null, stderr: worker.stderr, ...report };
    });
  } finally {
    for (const worker of workers) {
      if (worker.child.exitCode === null && worker.child.signalCode === null) {
        worker.child.kill('SIGKILL');
      }
    }
  }
}

/** The most runs of one key that overlapped in time, per key (an end before a start at a tie). */
export function maxOverlapPerKey(runs: readonly FlowRun[]): Map<string, number> {
  const events = runs.flatMap(([, key, start, end]) => [
    { key, at: start, delta: 1 },
    { key, at: end, delta: -1 },
  ]);
  events.sort((a, b) => a.at - b.at || a.delta - b.delta);
  const now = new Map<string, number>();
  const max = new Map<string, number>();
  for (const { key, delta } of events) {
    const n = (now.get(key) ?? 0) + delta;
    now.set(key, n);
    max.set(key, Math.max(max.get(key) ?? 0, n));
  }
  return max;
}
