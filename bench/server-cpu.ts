/**
 * The CPU time the PostgreSQL server spends, read from Linux's /proc when the server runs on this
 * machine: what a system costs the database per job, beside what its worker processes cost
 * (`process.cpuUsage()`). Two systems can drain at the same rate while one uses twice the
 * server's CPU — the share a user pays for on a database that other applications also use.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type pg from 'pg';

/**
 * Clock ticks per second of /proc's CPU times. Linux reports them in USER_HZ, which is 100 on
 * every architecture Node.js supports (it is part of the kernel's user-space ABI).
 */
const TICKS_PER_SECOND = 100;

/** Walks of /proc per reading before the last one is taken as it is (children exit rarely). */
const READ_ATTEMPTS = 5;

/** Host names that reach a server on this machine. */
const LOCAL_HOSTS = new Set(['', 'localhost', '127.0.0.1', '[::1]', '::1']);

/** The server's CPU, summed over the postmaster and every process it started. */
export class ServerCpu {
  private constructor(private readonly postmaster: number) {}

  /**
   * The server behind `pool`, or `null` when its CPU cannot be read here: not Linux, a server on
   * another host (its backend's pid would name some other local process), or /proc not readable.
   */
  static async locate(pool: pg.Pool, databaseUrl: string): Promise<ServerCpu | null> {
    if (process.platform !== 'linux') return null;
    const host = new URL(databaseUrl).hostname;
    if (!LOCAL_HOSTS.has(host) && !host.startsWith('%2F')) return null;
    const { rows } = await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const backend = rows[0]?.pid;
    if (backend === undefined) return null;
    const stat = readStat(backend);
    if (stat === null || stat.comm !== 'postgres') return null;
    const parent = readStat(stat.ppid);
    if (parent === null || parent.comm !== 'postgres') return null;
    return new ServerCpu(stat.ppid);
  }

  /**
   * CPU seconds (user + system) the server has used so far, in µs: the postmaster's own, that
   * of its live children (backends, autovacuum, checkpointer, WAL writer) and of the children
   * it has reaped. Everything the server does for every client counts, so the figure is the
   * workload's only while nothing else uses the server.
   *
   * A child reaped while /proc is walked would be missed (reaped after the postmaster was read,
   * before its own entry) or counted twice: the walk is taken again, up to
   * {@link READ_ATTEMPTS} times, until the postmaster's reaped total stayed the same across it.
   */
  readUs(): number {
    let ticks = 0;
    for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
      const reapedBefore = reapedTicks(this.stat());
      const live = this.liveChildrenTicks();
      const own = this.stat();
      ticks = own.utime + own.stime + reapedTicks(own) + live;
      if (reapedTicks(own) === reapedBefore) break;
    }
    return (ticks * 1e6) / TICKS_PER_SECOND;
  }

  private stat(): ProcStat {
    const own = readStat(this.postmaster);
    if (own === null) throw new Error(`PostgreSQL's postmaster (pid ${this.postmaster}) is gone`);
    return own;
  }

  /** CPU ticks of the postmaster's children alive now. */
  private liveChildrenTicks(): number {
    let ticks = 0;
    for (const entry of readdirSync('/proc')) {
      const pid = Number(entry);
      if (!Number.isInteger(pid) || pid === this.postmaster) continue;
      const child = readStat(pid);
      if (child?.ppid === this.postmaster) ticks += child.utime + child.stime;
    }
    return ticks;
  }
}

/** CPU ticks of the children a process has reaped. */
function reapedTicks(stat: ProcStat): number {
  return stat.cutime + stat.cstime;
}

interface ProcStat {
  comm: string;
  ppid: number;
  utime: number;
  stime: number;
  cutime: number;
  cstime: number;
}

/** Fields of /proc/<pid>/stat (proc(5)), or `null` when the process is gone or unreadable. */
function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name is in parentheses and may itself hold spaces or parentheses.
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const fields = text.slice(close + 2).split(' ');
  // fields[0] is field 3 (state): ppid is field 4, utime … cstime fields 14–17.
  const field = (n: number): number => Number(fields[n - 3]);
  return {
    comm: text.slice(open + 1, close),
    ppid: field(4),
    utime: field(14),
    stime: field(15),
    cutime: field(16),
    cstime: field(17),
  };
}
