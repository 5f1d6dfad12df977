/**
 * The operator commands (`chokaq jobs …`, `chokaq dlq …`) against real stores: an embedded folder
 * and a PostgreSQL schema, each seeded through the public API with succeeded, dead, cancelled and
 * scheduled jobs. The CLI runs in-process with captured output and a scripted line of input.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import type { CliIo } from '../../src/cli/io.js';
import { ChokaQ, defineJob, FatalError, silentLogger, type Store } from '../../src/index.js';
import { embedded } from '../../src/storage/embedded/index.js';
import { postgres } from '../../src/storage/postgres/index.js';
import { TEST_DATABASE_URL, dropSchema, postgresAvailable, uniqueSchema } from '../helpers/pg.js';
import { waitFor } from '../helpers/wait.js';
import { ROOT, requireDist } from '../fixtures/crash-process.js';
import { runCli, seededStores, type CliResult } from '../helpers/cli.js';

/** Runs the CLI in-process; `answer` is the one line the user types (none: input ended). */
const cli = (args: string[], answer?: string): Promise<CliResult> =>
  runCli(args, { answer: answer ?? null });

/** `cli` with `--json`, parsed. */
async function json<T>(args: string[]): Promise<T> {
  const result = await cli([...args, '--json']);
  expect(result.err).not.toMatch(/^chokaq: (?!embedded|PostgreSQL)/m);
  expect(result.code).toBe(0);
  return JSON.parse(result.out) as T;
}

interface Page {
  jobs: { id: string; state: string; queue: string; type: string; reason: string | null }[];
  nextCursor: string | null;
  count: { count: number; exact: boolean };
}

const mailJob = defineJob({
  type: 'mail.send.v1',
  queue: 'mail',
  handle: (payload: { to: string; n: number }) => {
    throw new FatalError(`mailbox ${payload.n} of '${payload.to}' is full`);
  },
});
const reportJob = defineJob({
  type: 'report.build.v1',
  queue: 'reports',
  handle: () => Promise.resolve({ pages: 3 }),
});

/**
 * Seeds `storage`: 3 archived reports, 5 dead mails (Fatal, tagged `vip`), one more mail cancelled
 * while pending (DLQ, `Cancelled`) and one mail due in an hour (scheduled).
 */
async function seed(storage: Store): Promise<void> {
  const chokaq = new ChokaQ({
    storage,
    jobs: [mailJob, reportJob],
    logger: silentLogger,
    pollInterval: 50,
  });
  await chokaq.start();
  try {
    await chokaq.enqueueMany(
      mailJob,
      Array.from({ length: 5 }, (_, n) => ({ payload: { to: 'a@example.com', n }, tags: 'vip' })),
    );
    await chokaq.enqueueMany(
      reportJob,
      Array.from({ length: 3 }, () => ({ payload: {} })),
    );
    const later = await chokaq.enqueueMany(mailJob, [
      { payload: { to: 'b@example.com', n: 90 }, delay: '1h' },
      { payload: { to: 'c@example.com', n: 91 }, delay: '1h' },
    ]);
    await chokaq.cancel([later[0]!.id], { actor: 'seed' });
    await waitFor(
      async () => (await chokaq.jobs.count({ state: ['succeeded', 'dead'] })).count === 9,
      { timeoutMs: 20_000, message: 'seeded jobs to settle' },
    );
  } finally {
    await chokaq.stop();
  }
}

/** A worker module whose mail job checks payloads: `to` must be a text with an `@`. */
const MODULE_SOURCE = `
const schema = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value) =>
      typeof value?.to === 'string' && value.to.includes('@')
        ? { value }
        : { issues: [{ message: 'must be an address', path: ['to'] }] },
  },
};
export default {
  jobs: [{ type: 'mail.send.v1', queue: 'mail', schema, handle: async () => undefined }],
};
`;

const pgUp = await postgresAvailable();
const dirs: string[] = [];

afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

const providers = seededStores('cliop', seed, dirs, pgUp);

describe.each(providers)('operator commands on $name', ({ skip, setup }) => {
  let flags: string[] = [];
  let cleanup = (): Promise<void> => Promise.resolve();
  let moduleFile = '';

  beforeAll(async () => {
    if (skip) return;
    ({ flags, cleanup } = await setup());
    const dir = await mkdtemp(join(tmpdir(), 'chokaq-cli-mod-'));
    dirs.push(dir);
    moduleFile = join(dir, 'jobs.mjs');
    await writeFile(moduleFile, MODULE_SOURCE);
  }, 60_000);

  afterAll(async () => {
    await cleanup();
  });

  it.skipIf(skip)('jobs list pages every table with filters, counts and cursors', async () => {
    const all = await json<Page>(['jobs', 'list', ...flags]);
    expect(all.count).toEqual({ count: 10, exact: true });
    expect(new Set(all.jobs.map((job) => job.state))).toEqual(
      new Set(['scheduled', 'succeeded', 'dead']),
    );

    const dead = await json<Page>(['jobs', 'list', ...flags, '--state', 'dead', '--queue', 'mail']);
    expect(dead.jobs).toHaveLength(6);
    const fatal = await json<Page>(['jobs', 'list', ...flags, '--failure-reason', 'Fatal']);
    expect(fatal.jobs.map((job) => job.reason)).toEqual(Array(5).fill('Fatal'));
    const tagged = await json<Page>(['jobs', 'list', ...flags, '--tag', 'vip', '--state', 'dead']);
    expect(tagged.count.count).toBe(5);
    const byError = await json<Page>(['jobs', 'list', ...flags, '--error', 'mailbox 3']);
    expect(byError.jobs).toHaveLength(1);
    const byPayload = await json<Page>([
      'jobs',
      'list',
      ...flags,
      '--payload-contains',
      '{"to":"c@example.com"}',
    ]);
    expect(byPayload.jobs.map((job) => job.state)).toEqual(['scheduled']);
    const types = await json<Page>(['jobs', 'list', ...flags, '--type', 'report.build.v1']);
    expect(types.jobs.map((job) => job.state)).toEqual(Array(3).fill('succeeded'));
    const future = await json<Page>([
      'jobs',
      'list',
      ...flags,
      '--created-from',
      new Date(Date.now() + 3_600_000).toISOString(),
    ]);
    expect(future.jobs).toEqual([]);
    const retried = await json<Page>(['jobs', 'list', ...flags, '--attempts-min', '2']);
    expect(retried.jobs).toEqual([]);

    // Pages of 4 with their cursors cover the 10 jobs once each.
    const seen: string[] = [];
    let cursor: string[] = [];
    for (let page = 0; page < 5; page++) {
      const next = await json<Page>(['jobs', 'list', ...flags, '--limit', '4', ...cursor]);
      seen.push(...next.jobs.map((job) => job.id));
      if (next.nextCursor === null) break;
      cursor = ['--cursor', next.nextCursor];
    }
    expect(seen.sort()).toEqual(all.jobs.map((job) => job.id).sort());

    const human = await cli(['jobs', 'list', ...flags, '--limit', '2']);
    expect(human.code).toBe(0);
    expect(human.out.split('\n')[0]).toMatch(/^ID +STATE +QUEUE +TYPE +ATTEMPTS/);
    expect(human.err).toMatch(/2 shown of 10 matching\nnext page: --cursor \S+\n$/);
  });

  it.skipIf(skip)('bad filter values are coded errors that read nothing', async () => {
    const cases: [string[], RegExp][] = [
      [
        ['--state', 'bogus'],
        /chokaq: --state must be one of .*"bogus".*\(CHOKAQ_INVALID_FILTER\)\n$/,
      ],
      [
        ['--failure-reason', 'fatal'],
        /chokaq: --failure-reason must be one of .*\(CHOKAQ_INVALID_FILTER\)\n$/,
      ],
      [['--limit', '5000'], /chokaq: --limit must be .*5000.*\(CHOKAQ_INVALID_ARGUMENT\)\n$/],
      [['--limit', 'many'], /--limit must be a number, got 'many'\n$/],
      [['--sort', 'priority'], /chokaq: --sort must be .*\(CHOKAQ_INVALID_ARGUMENT\)\n$/],
      [['--cursor', 'not-a-cursor'], /\(CHOKAQ_INVALID_CURSOR\)\n$/],
      [
        ['--created-from', 'yesterday'],
        /chokaq: --created-from must be .*"yesterday".*\(CHOKAQ_INVALID_FILTER\)\n$/,
      ],
      [['--payload-contains', '{bad'], /--payload-contains must be JSON/],
      [['--attempts-min=-1'], /chokaq: --attempts-min .*\(CHOKAQ_INVALID_FILTER\)\n$/],
    ];
    for (const [args, message] of cases) {
      const result = await cli(['jobs', 'list', ...flags, ...args]);
      expect(result.code, args.join(' ')).not.toBe(0);
      expect(result.out, args.join(' ')).toBe('');
      expect(result.err, args.join(' ')).toMatch(message);
      expect(result.err, args.join(' ')).not.toMatch(/query\./);
    }
  });

  it.skipIf(skip)('jobs show prints a job with its timeline; an unknown id fails', async () => {
    const [dead] = (await json<Page>(['dlq', 'list', ...flags, '--failure-reason', 'Fatal'])).jobs;
    const shown = await cli(['jobs', 'show', dead!.id, ...flags]);
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/^id +\S+\nstate +dead\n/);
    expect(shown.out).toMatch(/\ntimeline\n .*enqueued\n .*run 1: dead \(Fatal\)/);
    expect(shown.out).toContain('FatalError: mailbox');
    const detail = await json<{ state: string; timeline: { kind: string }[] }>([
      'jobs',
      'show',
      dead!.id,
      ...flags,
    ]);
    expect(detail.state).toBe('dead');
    expect(detail.timeline.map((entry) => entry.kind)).toEqual(['enqueued', 'run']);
    const missing = await cli(['jobs', 'show', 'no-such-job', ...flags]);
    expect(missing).toMatchObject({ code: 1, out: '' });
    expect(missing.err).toMatch(/no job no-such-job in the hot table, the archive or the DLQ\n$/);
  });

  it.skipIf(skip)(
    'status prints every queue, the error groups and the workers; --watch until stopped',
    async () => {
      const report = await json<{
        queues: {
          queue: string;
          dead: number;
          scheduled: number;
          lastFiveMinutes: { succeeded: number };
        }[];
        errorGroups: unknown[];
        workers: unknown[];
        circuits: unknown[];
      }>(['status', ...flags]);
      const mail = report.queues.find((q) => q.queue === 'mail');
      expect(mail).toMatchObject({ dead: 6, scheduled: 1 });
      expect(report.queues.find((q) => q.queue === 'reports')?.lastFiveMinutes.succeeded).toBe(3);
      expect(report.errorGroups.length).toBeGreaterThan(0);
      expect(report.workers).toEqual([]);
      expect(report.circuits).toEqual([]);
      const human = await cli(['status', ...flags]);
      expect(human.out).toMatch(/\nQUEUE +STATE +DUE +SCHEDULED +RUNNING +LAG +DLQ/);
      expect(human.out).toMatch(/\nmail +active +\d+ +1 +0 +\S+ +6 /);
      expect(human.out).toContain('no worker alive');
      expect(human.out).toContain('\ncircuits\nevery circuit is closed\n');

      let out = '';
      const controller = new AbortController();
      const io: CliIo = {
        stdout: {
          write: (text: string) => (
            (out += text),
            out.split('\n').length > 2 && controller.abort()
          ),
        },
        stderr: { write: () => true },
        env: {},
      };
      const code = await run(
        ['status', ...flags, '--watch', '--interval', '1', '--json'],
        io,
        controller.signal,
      );
      expect(code).toBe(0);
      expect(out.trim().split('\n').length).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(out.trim().split('\n')[0]!)).toHaveProperty('queues');
      const bad = await cli(['status', ...flags, '--interval', '0']);
      expect(bad.err).toMatch(/--interval must be a whole number of seconds from 1 to 3600/);
    },
  );

  it.skipIf(skip)('dlq groups lists error groups, largest first', async () => {
    const groups = await json<
      { fingerprint: string; count: number; errorClass: string; message: string }[]
    >(['dlq', 'groups', ...flags]);
    expect(groups.map((group) => group.count)).toEqual([5, 1]);
    expect(groups[0]).toMatchObject({
      errorClass: 'FatalError',
      message: 'mailbox <n> of <q> is full',
    });
    const human = await cli(['dlq', 'groups', ...flags, '--queue', 'mail']);
    expect(human.out).toMatch(/^GROUP +COUNT +FIRST SEEN/);
    expect(human.out).toContain(groups[0]!.fingerprint);
    const none = await json<unknown[]>(['dlq', 'groups', ...flags, '--queue', 'reports']);
    expect(none).toEqual([]);
  });

  it.skipIf(skip)(
    'dlq resurrect previews, needs the count typed back and a reason, then moves exactly those jobs',
    async () => {
      const group = (await json<{ fingerprint: string }[]>(['dlq', 'groups', ...flags]))[0]!;
      const selection = ['dlq', 'resurrect', ...flags, '--group', group.fingerprint];

      const noReason = await cli(selection, '5');
      expect(noReason.code).toBe(2);
      expect(noReason.err).toMatch(/--reason is required/);

      const recorded = async () => {
        const reader = auditReader(flags);
        try {
          return [(await reader.bulk.list()).length, (await reader.audit.list()).length];
        } finally {
          await reader.stop();
        }
      };
      const before = await recorded();
      const preview = await cli([...selection, '--preview']);
      expect(preview.code).toBe(0);
      expect(preview.out.split('\n').filter((line) => line.includes('mail.send.v1'))).toHaveLength(
        5,
      );
      // A preview only reads: it records no bulk action and no audit entry.
      expect(preview.err).toMatch(/(^|\n)5 jobs to resurrect\n$/);
      expect(await recorded()).toEqual(before);

      const wrong = await cli([...selection, '--reason', 'SMTP fixed'], '4');
      expect(wrong.code).toBe(1);
      expect(wrong.err).toMatch(/type 5 to resurrect them: not confirmed; nothing changed\n$/);
      const ended = await cli([...selection, '--reason', 'SMTP fixed']);
      expect(ended.code).toBe(1);
      expect((await json<Page>(['dlq', 'list', ...flags])).jobs).toHaveLength(6);

      const done = await cli([...selection, '--reason', 'SMTP fixed', '--actor', 'ops@acme'], '5');
      expect(done.code).toBe(0);
      expect(done.err).toMatch(/succeeded: 5\/5 done, 5 applied, 0 skipped\n$/);
      const left = await json<Page>(['dlq', 'list', ...flags]);
      expect(left.jobs.map((job) => job.reason)).toEqual(['Cancelled']);
      const pending = await json<Page>(['jobs', 'list', ...flags, '--state', 'pending']);
      expect(pending.jobs).toHaveLength(5);
      const waiting = await json<Page>(['jobs', 'list', ...flags, '--state', 'pending,scheduled']);
      expect(waiting.jobs).toHaveLength(6);

      // The audit trail names the actor and the reason.
      const chokaq = auditReader(flags);
      try {
        const [entry] = await chokaq.audit.list({ limit: 1 });
        expect(entry).toMatchObject({
          actor: 'ops@acme',
          reason: 'SMTP fixed',
          action: 'bulk-resurrect',
        });
      } finally {
        await chokaq.stop();
      }
    },
  );

  it.skipIf(skip)(
    'dlq edit changes a dead job in place, checked by the module schema; resurrect --patch too',
    async () => {
      const [dead] = (await json<Page>(['dlq', 'list', ...flags])).jobs;
      const id = dead!.id;
      const refused = await cli([
        'dlq',
        'edit',
        id,
        ...flags,
        '--module',
        moduleFile,
        '--payload',
        '{"to":"nobody"}',
      ]);
      expect(refused.code).toBe(1);
      expect(refused.err).toMatch(/to: must be an address \(CHOKAQ_PAYLOAD_INVALID\)\n$/);
      // Without the module the schema is unknown here: refused, unless --unchecked says so.
      const unknown = await cli(['dlq', 'edit', id, ...flags, '--payload', '{"to":"nobody"}']);
      expect(unknown.code).toBe(1);
      expect(unknown.err).toMatch(/CHOKAQ_UNKNOWN_JOB_TYPE/);
      const unchecked = await cli([
        'dlq',
        'edit',
        id,
        ...flags,
        '--payload',
        '{"to":"nobody"}',
        '--unchecked',
      ]);
      expect(unchecked.code).toBe(0);

      const edited = await cli([
        'dlq',
        'edit',
        id,
        ...flags,
        '--module',
        moduleFile,
        '--payload',
        '{"to":"d@example.com","n":7}',
        '--tags',
        'fixed',
        '--reason',
        'typo',
      ]);
      expect(edited.code).toBe(0);
      const detail = await json<{ found: { job: { payload: string; tags: string } } }>([
        'jobs',
        'show',
        id,
        ...flags,
      ]);
      expect(JSON.parse(detail.found.job.payload)).toEqual({ to: 'd@example.com', n: 7 });
      expect(detail.found.job.tags).toBe('fixed');
      expect((await cli(['dlq', 'edit', 'no-such-job', ...flags, '--tags', 'x'])).code).toBe(1);

      // A patch that breaks the schema is skipped and reported; nothing else moves.
      const patched = await cli([
        'dlq',
        'resurrect',
        ...flags,
        '--id',
        id,
        '--module',
        moduleFile,
        '--patch',
        '{"to":null}',
        '--reason',
        'drop the address',
        '--yes',
      ]);
      expect(patched.code).toBe(0);
      expect(patched.err).toMatch(
        /succeeded: 1\/1 done, 0 applied, 1 skipped\n +skipped \S+: .*must be an address/,
      );
      const fixed = await cli([
        'dlq',
        'resurrect',
        ...flags,
        '--id',
        id,
        '--module',
        moduleFile,
        '--patch',
        '{"n":8}',
        '--set-tags',
        'retry',
        '--reason',
        'bump n',
        '--yes',
      ]);
      expect(fixed.code).toBe(0);
      const moved = await json<{
        state: string;
        found: { job: { payload: string; tags: string } };
      }>(['jobs', 'show', id, ...flags]);
      expect(moved.state).toBe('pending');
      expect(JSON.parse(moved.found.job.payload)).toEqual({ to: 'd@example.com', n: 8 });
      expect(moved.found.job.tags).toBe('retry');
    },
  );

  it.skipIf(skip)('dlq purge needs a selection and deletes what it previewed', async () => {
    const chokaq = auditReader(flags);
    try {
      const {
        jobs: [pending],
      } = await chokaq.jobs.query({ state: 'pending', limit: 1 });
      await chokaq.cancel([pending!.id], { actor: 'test' });
    } finally {
      await chokaq.stop();
    }
    const none = await cli(['dlq', 'purge', ...flags, '--reason', 'x', '--yes']);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(
      /say which jobs: --id ID, --flow ID, --group FP, filter flags, or --all/,
    );
    const both = await cli(['dlq', 'purge', ...flags, '--all', '--queue', 'mail', '--reason', 'x']);
    expect(both.code).toBe(2);
    const editFlag = await cli([
      'dlq',
      'purge',
      ...flags,
      '--all',
      '--patch',
      '{}',
      '--reason',
      'x',
    ]);
    expect(editFlag.err).toMatch(/purge takes no --patch/);
    const purged = await json<{ status: string; applied: number }>([
      'dlq',
      'purge',
      ...flags,
      '--all',
      '--reason',
      'clean up',
      '--yes',
    ]);
    expect(purged).toMatchObject({ status: 'succeeded', applied: 1 });
    expect((await json<Page>(['dlq', 'list', ...flags])).jobs).toEqual([]);
    const again = await cli(['dlq', 'purge', ...flags, '--all', '--reason', 'x', '--yes']);
    expect(again).toMatchObject({ code: 0 });
    expect(again.err).toMatch(/0 jobs to purge .*\nnothing to do\n$/);
    const previewed = await json<{ count: number; token?: string }>([
      'dlq',
      'purge',
      ...flags,
      '--all',
      '--preview',
    ]);
    expect(previewed.count).toBe(0);
    expect(previewed.token).toBeUndefined();
  });

  it.skipIf(skip)(
    'jobs rerun enqueues a copy of a succeeded job, audited; other ids fail',
    async () => {
      const [done] = (
        await json<Page>(['jobs', 'list', ...flags, '--state', 'succeeded', '--queue', 'reports'])
      ).jobs;
      const copy = await json<{ from: string; id: string }>([
        'jobs',
        'rerun',
        done!.id,
        ...flags,
        '--reason',
        'report lost by the mail relay',
        '--actor',
        'ops@acme',
      ]);
      expect(copy.from).toBe(done!.id);
      const pending = await json<{ state: string; found: { job: { type: string } } }>([
        'jobs',
        'show',
        copy.id,
        ...flags,
      ]);
      expect(pending).toMatchObject({ state: 'pending', found: { job: { type: done!.type } } });
      const reader = auditReader(flags);
      try {
        expect((await reader.audit.list({ limit: 1 }))[0]).toMatchObject({
          action: 'rerun',
          actor: 'ops@acme',
          reason: 'report lost by the mail relay',
        });
      } finally {
        await reader.stop();
      }
      const human = await cli(['jobs', 'rerun', done!.id, ...flags]);
      expect(human.err).toMatch(new RegExp(`\\nenqueued \\S+, a copy of ${done!.id}\\n$`));
      const dead = (await json<Page>(['jobs', 'list', ...flags, '--state', 'dead'])).jobs[0];
      for (const id of ['no-such-job', ...(dead ? [dead.id] : [])]) {
        const missing = await cli(['jobs', 'rerun', id, ...flags]);
        expect(missing).toMatchObject({ code: 1, out: '' });
        expect(missing.err).toMatch(/no succeeded job \S+ in the archive; nothing enqueued\n$/);
      }
    },
  );
});

/** Runs the built CLI with `input` on its standard input; resolves when it exits. */
function builtCli(args: string[], input: string): Promise<{ code: number | null; err: string }> {
  const child = execFile(process.execPath, [join(ROOT, 'dist/cli/main.js'), ...args], {
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? '' },
  });
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  child.stdin?.end(input);
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, err })));
}

/** A ChokaQ on the store of `flags`, to read the audit trail. */
function auditReader(flags: string[]): ChokaQ {
  const value = (name: string) => flags[flags.indexOf(name) + 1]!;
  const storage = flags.includes('--data-dir')
    ? embedded({ dataDir: value('--data-dir'), logger: silentLogger })
    : postgres({
        connectionString: value('--database-url'),
        schema: value('--schema'),
        logger: silentLogger,
      });
  return new ChokaQ({ storage, logger: silentLogger, worker: false });
}

describe('operator commands and the embedded store', () => {
  it('the built CLI reads the typed confirmation from its input and exits', async () => {
    requireDist(['dist/cli/main.js']);
    const dir = await mkdtemp(join(tmpdir(), 'chokaq-cli-pipe-'));
    dirs.push(dir);
    const dataDir = join(dir, 'store');
    await seed(embedded({ dataDir, logger: silentLogger }));
    const resurrect = ['dlq', 'resurrect', '--data-dir', dataDir, '--all'];
    // No --reason: refused before anything is asked or changed.
    const refused = await builtCli(resurrect, '6\n');
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/--reason is required/);
    const confirmed = await builtCli([...resurrect, '--reason', 'piped'], '6\n');
    expect(confirmed.err).toMatch(/type 6 to resurrect them: [^]*succeeded: 6\/6 done, 6 applied/);
    expect(confirmed.code).toBe(0);
  }, 60_000);

  it('refuse a folder that holds no store, and one another process holds', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chokaq-cli-held-'));
    dirs.push(dir);
    const missing = await cli(['jobs', 'list', '--data-dir', join(dir, 'nowhere')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^chokaq: .*nowhere does not exist: pass --database-url/);

    const dataDir = join(dir, 'store');
    const holder = new ChokaQ({
      storage: embedded({ dataDir, logger: silentLogger }),
      logger: silentLogger,
      worker: false,
    });
    await holder.jobs.count();
    try {
      const held = await cli(['dlq', 'groups', '--data-dir', dataDir]);
      expect(held.code).toBe(1);
      expect(held.err).toMatch(/CHOKAQ_STORE_LOCKED|in use|locked/i);
    } finally {
      await holder.stop();
    }
  }, 60_000);
});

describe('chokaq purge', () => {
  it('previews, asks for the total, purges in batches; --dry-run and bad ages change nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'chokaq-cli-purge-'));
    dirs.push(dir);
    const dataDir = join(dir, 'store');
    const storage = embedded({ dataDir, logger: silentLogger });
    await seed(storage);
    const reader = new ChokaQ({
      storage: embedded({ dataDir, logger: silentLogger }),
      logger: silentLogger,
      worker: false,
    });
    // Age the rows past a second of store time.
    const until = Date.now() + 1100;
    await waitFor(() => Date.now() > until, { message: 'a second' });
    const flags = ['--data-dir', dataDir, '--archive', '1s', '--dlq', 'keep'];
    const dry = await cli(['purge', ...flags, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.out).toMatch(/^TABLE +QUEUE +OLDER THAN +WOULD GO\narchive +\(all\) +1s +3\n/);
    expect(dry.out).not.toContain('dlq');
    const bad = await cli(['purge', '--data-dir', dataDir, '--archive', 'soon', '--yes']);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(
      /chokaq: --archive must be a duration.*"soon".*\(CHOKAQ_INVALID_DURATION\)\n$/,
    );
    const wrong = await cli(['purge', ...flags], '2');
    expect(wrong).toMatchObject({ code: 1 });
    expect(wrong.err).toMatch(/type 3 to purge them: not confirmed; nothing changed\n$/);
    const done = await cli(['purge', ...flags, '--json'], '3');
    expect(done.code).toBe(0);
    const report = JSON.parse(done.out) as { purged: { table: string; rows: number }[] };
    expect(report.purged.find((e) => e.table === 'archive')?.rows).toBe(3);
    try {
      expect((await reader.jobs.count({ state: 'succeeded' })).count).toBe(0);
      expect((await reader.jobs.count({ state: 'dead' })).count).toBe(6);
    } finally {
      await reader.stop();
    }
  }, 60_000);
});

describe.skipIf(!pgUp)('status with a live worker (PostgreSQL)', () => {
  const schema = uniqueSchema('clicirc');

  afterAll(async () => {
    await dropSchema(schema);
  });

  it('shows an open circuit and its worker, as text and as JSON', async () => {
    const breaker = defineJob({
      type: 'cli.breaker.v1',
      queue: 'cli',
      retry: { maxAttempts: 1 },
      circuit: { failureThreshold: 1, breakDuration: '1h' },
      handle: () => {
        throw new Error('downstream is down');
      },
    });
    const worker = new ChokaQ({
      storage: postgres({ connectionString: TEST_DATABASE_URL, schema, logger: silentLogger }),
      jobs: [breaker],
      workerId: 'cli-breaker-worker',
      logger: silentLogger,
      pollInterval: 50,
    });
    await worker.start();
    try {
      await worker.enqueue(breaker, undefined);
      await waitFor(async () => (await worker.status()).circuits.length === 1, {
        timeoutMs: 5000,
        message: 'the open circuit',
      });
      const flags = ['--database-url', TEST_DATABASE_URL, '--schema', schema];
      const report = await json<{
        circuits: unknown[];
        workers: { id: string; circuits: unknown[] }[];
      }>(['status', ...flags]);
      expect(report.circuits).toEqual([
        { type: 'cli.breaker.v1', state: 'open', workers: ['cli-breaker-worker'] },
      ]);
      expect(report.workers).toMatchObject([
        { id: 'cli-breaker-worker', circuits: [{ type: 'cli.breaker.v1', state: 'open' }] },
      ]);
      const human = await cli(['status', ...flags]);
      expect(human.code).toBe(0);
      expect(human.out).toMatch(
        /\ncircuits\nTYPE +STATE +WORKERS\ncli\.breaker\.v1 +open +cli-breaker-worker\n/,
      );
      expect(human.out).toMatch(/\ncli-breaker-worker .*cli\.breaker\.v1 \(open\)\n/);
      expect(human.out).not.toContain('every circuit is closed');
    } finally {
      await worker.stop();
    }
  }, 30_000);
});
