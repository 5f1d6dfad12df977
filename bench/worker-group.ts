/**
 * The worker side of one measurement: `processes` forked worker processes (`child.ts`), or, for
 * the single-process embedded store, the worker inside the harness process.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FromChild, ToChild } from './protocol.js';
import { Recorder, type WorkerResult } from './recorder.js';
import type { SystemAdapter, WorkerSetup, WorkerSide } from './systems/adapter.js';

/** How long a worker process may take to connect, start or stop. */
const STEP_TIMEOUT_MS = 60_000;
/** Progress and RSS sample interval. */
const SAMPLE_MS = 20;

/** Workers of one system, ready to be started with {@link WorkerGroup.go}. */
export interface WorkerGroup {
  /** Number of worker processes (1 for in-process). */
  readonly processes: number;
  /** Starts working everywhere; resolves when every process has started. */
  go(): Promise<void>;
  /** Jobs run so far, as last reported. */
  handled(): number;
  /** Latest RSS of each process, in bytes. */
  rss(): number[];
  /** Stops every process gracefully and returns what each ran. */
  stop(): Promise<WorkerResult[]>;
  /** Kills whatever is left (after a failure). */
  kill(): void;
  /** The first failure of a worker process, if any. */
  failure(): Error | undefined;
}

/** Starts the workers of `adapter`'s system and waits until they are connected. */
export async function startWorkers(
  adapter: SystemAdapter,
  options: { processes: number; databaseUrl: string; setup: WorkerSetup },
): Promise<WorkerGroup> {
  if (adapter.inProcessWorkers) {
    if (options.processes !== 1) throw new Error(`${adapter.system} runs in one process only`);
    return inProcess(await adapter.createWorker(options.setup));
  }
  const children = await Promise.all(
    Array.from({ length: options.processes }, () => ChildWorker.start(adapter, options)),
  );
  return {
    processes: children.length,
    go: async () => {
      await Promise.all(children.map((c) => c.go()));
    },
    handled: () => children.reduce((sum, c) => sum + c.handled, 0),
    rss: () => children.map((c) => c.rss),
    stop: () => Promise.all(children.map((c) => c.stop())),
    kill: () => children.forEach((c) => c.kill()),
    failure: () => children.find((c) => c.failure !== undefined)?.failure,
  };
}

function inProcess(worker: WorkerSide): WorkerGroup {
  const recorder = new Recorder();
  let rss = 0;
  return {
    processes: 1,
    go: async () => {
      recorder.begin(SAMPLE_MS, (_, sample) => (rss = sample));
      await worker.start(recorder.sink);
    },
    handled: () => recorder.indices.length,
    rss: () => [rss],
    stop: async () => {
      recorder.endCpu();
      await worker.stop();
      return [recorder.finish()];
    },
    kill: () => {
      worker.stop().catch(() => undefined);
    },
    failure: () => undefined,
  };
}

/** One forked worker process. */
class ChildWorker {
  handled = 0;
  rss = 0;
  private readonly waiters = new Map<FromChild['type'], (message: FromChild) => void>();
  failure: Error | undefined;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: FromChild) => {
      if (message.type === 'progress') {
        this.handled = message.handled;
        this.rss = message.rss;
        return;
      }
      if (message.type === 'error') {
        this.failWith(new Error(`worker process failed: ${message.message}`));
        return;
      }
      const waiter = this.waiters.get(message.type);
      this.waiters.delete(message.type);
      waiter?.(message);
    });
    child.on('exit', (code, signal) => {
      if (this.waiters.size > 0) {
        this.failWith(new Error(`worker process exited (code ${code}, signal ${signal})`));
      }
    });
  }

  static async start(
    adapter: SystemAdapter,
    options: { databaseUrl: string; setup: WorkerSetup },
  ): Promise<ChildWorker> {
    const path = fileURLToPath(new URL('./child.js', import.meta.url));
    const child = fork(path, [], {
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const worker = new ChildWorker(child);
    await worker.request(
      {
        type: 'init',
        system: adapter.system,
        databaseUrl: options.databaseUrl,
        setup: options.setup,
        sampleMs: SAMPLE_MS,
      },
      'ready',
    );
    return worker;
  }

  async go(): Promise<void> {
    await this.request({ type: 'go' }, 'started');
  }

  async stop(): Promise<WorkerResult> {
    const done = await this.request({ type: 'stop' }, 'done');
    if (done.type !== 'done') throw new Error('unexpected reply');
    const { indices, lags, starts, maxRss, cpuUserUs, cpuSystemUs } = done;
    return { indices, lags, starts, maxRss, cpuUserUs, cpuSystemUs };
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }

  private request(message: ToChild, reply: FromChild['type']): Promise<FromChild> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<FromChild>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(reply);
        reject(
          new Error(`worker process did not answer '${message.type}' within ${STEP_TIMEOUT_MS} ms`),
        );
      }, STEP_TIMEOUT_MS);
      this.waiters.set(reply, (answer) => {
        clearTimeout(timer);
        if (answer.type === 'error') reject(new Error(answer.message));
        else resolve(answer);
      });
      this.child.send(message);
    });
  }

  private failWith(error: Error): void {
    this.failure = error;
    const waiters = [...this.waiters.values()];
    this.waiters.clear();
    for (const waiter of waiters) waiter({ type: 'error', message: error.message });
  }
}
