/** Messages between the harness and its worker processes (`child.ts`), over the fork IPC channel. */
import type { SystemName } from './contenders.js';
import type { WorkerSetup } from './systems/adapter.js';

/** Harness → worker process. */
export type ToChild =
  | {
      type: 'init';
      system: SystemName;
      databaseUrl: string;
      setup: WorkerSetup;
      /** Progress and resource sample interval in ms. */
      sampleMs: number;
    }
  | { type: 'go' }
  | { type: 'stop' };

/** Worker process → harness. */
export type FromChild =
  | { type: 'ready' }
  | { type: 'started' }
  | { type: 'progress'; handled: number; rss: number }
  | {
      type: 'done';
      /** Index of every job run, in run order. */
      indices: number[];
      /** Enqueue-to-start lag of each run in ms, same order. */
      lags: number[];
      /** When each run started (epoch ms), same order. */
      starts: number[];
      /** Largest RSS seen while working, in bytes. */
      maxRss: number;
      /** CPU time from "go" until stopped, in µs. */
      cpuUserUs: number;
      cpuSystemUs: number;
    }
  | { type: 'error'; message: string };
