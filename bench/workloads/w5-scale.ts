/**
 * W5 scale: the W2-1p drain after `archiveRows` succeeded and `deadRows` failed jobs were put
 * where each system keeps its history (see the adapters' `seedHistory`), to show that the hot
 * path does not slow down as history grows. The detail `vs own W2-1p` is the change in percent.
 */
import type { WorkloadContext, WorkloadOutcome } from './common.js';
import { runDrain } from './w2-drain.js';

/** Runs W5 for one system. */
export function runScale(ctx: WorkloadContext): Promise<WorkloadOutcome> {
  return runDrain(ctx, 'W5');
}
