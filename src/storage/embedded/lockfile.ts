/**
 * An exclusive lockfile for the embedded data directory. Two processes writing one PGlite data
 * directory corrupt it silently (PGlite ignores `postmaster.pid`), so the embedded store takes
 * `<dataDir>/chokaq.lock`, created with `wx` and holding the owner's pid.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ChokaQError } from '../../errors.js';

/** File name of the lock inside the data directory. @default 'chokaq.lock' */
export const LOCKFILE_NAME = 'chokaq.lock';

/** A held lock; {@link DirectoryLock.release} removes the file. */
export interface DirectoryLock {
  readonly path: string;
  /** Removes the lockfile if this process still owns it. Idempotent. */
  release(): void;
}

/** Whether a process with this pid is alive (EPERM means alive but not ours). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the file was modified within the last two seconds. */
function justCreated(path: string): boolean {
  try {
    return Date.now() - statSync(path).mtimeMs < 2000;
  } catch {
    return false;
  }
}

function readPid(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Takes the lock of `dir` (which must exist). A lockfile left by a dead process is taken over.
 *
 * @throws `CHOKAQ_STORAGE_LOCKED` when a live process (this one included, through another store)
 *   holds it.
 */
export function acquireDirectoryLock(dir: string): DirectoryLock {
  const path = join(dir, LOCKFILE_NAME);
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readPid(path);
      if (holder === null && justCreated(path)) {
        // Another opener created the file and has not written its pid yet.
        throw new ChokaQError(
          'CHOKAQ_STORAGE_LOCKED',
          `The embedded data directory ${dir} is being opened by another process.`,
          { retryable: true },
        );
      }
      if (holder !== null && alive(holder)) {
        throw new ChokaQError(
          'CHOKAQ_STORAGE_LOCKED',
          `The embedded data directory ${dir} is in use by process ${holder}${
            holder === process.pid ? ' (this process, through another store)' : ''
          }.`,
        );
      }
      // Stale (dead owner) or unreadable: remove and try again; `wx` keeps the race safe.
      try {
        unlinkSync(path);
      } catch (unlinkError) {
        if ((unlinkError as NodeJS.ErrnoException).code !== 'ENOENT') throw unlinkError;
      }
      continue;
    }
    try {
      writeSync(fd, `${process.pid}\n`);
    } finally {
      closeSync(fd);
    }
    let released = false;
    return {
      path,
      release(): void {
        if (released) return;
        released = true;
        if (readPid(path) !== process.pid) return;
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      },
    };
  }
  throw new ChokaQError('CHOKAQ_STORAGE_LOCKED', `Could not take the lock ${path}.`, {
    retryable: true,
  });
}
