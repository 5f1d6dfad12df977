/** Records the jobs a worker process runs, and samples its memory and CPU. */
import { nowMs, type JobSink } from './types.js';

/** What a worker process (or the in-process worker of the embedded store) reports at the end. */
export interface WorkerResult {
  indices: number[];
  lags: number[];
  /** When each run started (epoch ms), same order. */
  starts: number[];
  maxRss: number;
  cpuUserUs: number;
  cpuSystemUs: number;
}

/** Collects job indices and enqueue-to-start lags; samples RSS while running. */
export class Recorder {
  readonly indices: number[] = [];
  readonly lags: number[] = [];
  readonly starts: number[] = [];
  private maxRss = 0;
  private cpuStart: NodeJS.CpuUsage | undefined;
  private cpu: NodeJS.CpuUsage | undefined;
  private timer: NodeJS.Timeout | undefined;

  /** Pass to the system's handler. */
  readonly sink: JobSink = (job) => {
    const now = nowMs();
    this.starts.push(now);
    this.lags.push(now - job.t);
    this.indices.push(job.i);
  };

  /** Starts CPU accounting and sampling; `onSample` gets the jobs run so far and the RSS. */
  begin(sampleMs: number, onSample?: (handled: number, rss: number) => void): void {
    this.cpuStart = process.cpuUsage();
    this.timer = setInterval(() => {
      const rss = this.sampleRss();
      onSample?.(this.indices.length, rss);
    }, sampleMs);
    this.timer.unref();
  }

  /** Ends CPU accounting (call when the work is done, before shutting the system down). */
  endCpu(): void {
    if (this.cpu === undefined && this.cpuStart !== undefined) {
      this.cpu = process.cpuUsage(this.cpuStart);
    }
  }

  /** Stops sampling and returns the results. */
  finish(): WorkerResult {
    this.endCpu();
    if (this.timer !== undefined) clearInterval(this.timer);
    this.sampleRss();
    return {
      indices: this.indices,
      lags: this.lags,
      starts: this.starts,
      maxRss: this.maxRss,
      cpuUserUs: this.cpu?.user ?? 0,
      cpuSystemUs: this.cpu?.system ?? 0,
    };
  }

  private sampleRss(): number {
    const rss = process.memoryUsage.rss();
    if (rss > this.maxRss) this.maxRss = rss;
    return rss;
  }
}
