import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/logging/logger.js';
import { embedded } from '../../src/storage/embedded/index.js';
import { LOCKFILE_NAME, acquireDirectoryLock } from '../../src/storage/embedded/lockfile.js';
import { newJob } from '../conformance/helpers.js';

const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chokaq-lock-'));
  dirs.push(dir);
  return dir;
}

/** A pid that is certainly not running: a child process that already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.exit(0)']);
  return child.pid ?? 999_999_999;
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('embedded data directory lock', () => {
  // Two fresh PGlite data directories are made and opened: a minute is too tight under load.
  it(
    'refuses a second store on the same directory until the first closes',
    { timeout: 180_000 },
    async () => {
      const dataDir = join(tempDir(), 'data'); // does not exist yet: created on open
      const first = embedded({ dataDir, logger: silentLogger, vacuumIntervalMs: 0 });
      await first.open();
      const lockPath = join(dataDir, LOCKFILE_NAME);
      expect(readFileSync(lockPath, 'utf8').trim()).toBe(String(process.pid));

      const second = embedded({ dataDir, logger: silentLogger });
      await expect(second.open()).rejects.toMatchObject({ code: 'CHOKAQ_STORAGE_LOCKED' });
      await second.close();
      // The failed open must not have removed the first store's lock.
      expect(existsSync(lockPath)).toBe(true);

      await first.jobs.enqueue([newJob({ id: 'kept', type: 't.v1', payload: '{}' })]);
      await first.close();
      expect(existsSync(lockPath)).toBe(false);

      const third = embedded({ dataDir, logger: silentLogger });
      await third.open();
      try {
        expect((await third.operator.getJob('kept'))?.where).toBe('hot');
      } finally {
        await third.close();
      }
    },
  );

  it('takes over a lockfile left by a dead process', () => {
    const dir = tempDir();
    const lockPath = join(dir, LOCKFILE_NAME);
    writeFileSync(lockPath, `${deadPid()}\n`);
    const lock = acquireDirectoryLock(dir);
    expect(readFileSync(lockPath, 'utf8').trim()).toBe(String(process.pid));
    lock.release();
    expect(existsSync(lockPath)).toBe(false);
  });

  it('opens a store over a stale lockfile', async () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, LOCKFILE_NAME), `${deadPid()}\n`);
    const store = embedded({ dataDir, logger: silentLogger, vacuumIntervalMs: 0 });
    await store.open();
    await store.close();
  });

  it('refuses a lockfile held by another live process', () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCKFILE_NAME), `${process.ppid}\n`);
    expect(() => acquireDirectoryLock(dir)).toThrow(
      expect.objectContaining({ code: 'CHOKAQ_STORAGE_LOCKED' }) as Error,
    );
  });

  it('does not lock or close a shared PGlite instance', async () => {
    const { PGlite } = await import('@electric-sql/pglite');
    const shared = new PGlite();
    try {
      const a = embedded({ pglite: shared, schema: 'lock_a', logger: silentLogger });
      const b = embedded({ pglite: shared, schema: 'lock_b', logger: silentLogger });
      await Promise.all([a.open(), b.open()]);
      await a.close();
      expect(shared.closed).toBe(false);
      expect(await b.queues.queueStats()).toHaveLength(1);
      await b.close();
      expect(shared.closed).toBe(false);
    } finally {
      await shared.close();
    }
  });
});
