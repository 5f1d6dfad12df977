import { PGlite } from '@electric-sql/pglite';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { ChokaQ } from '../../src/chokaq.js';
import { consoleLogger, fromPino, type PinoLike } from '../../src/observability/logging/logger.js';
import { providerLogger } from '../../src/observability/logging/provider-logger.js';
import { embedded } from '../../src/storage/embedded/index.js';
import { uniqueSchema } from '../helpers/pg.js';

/** One field of a record, in output order. */
type Field = [key: string, value: unknown];

/**
 * A pino stand-in that writes records as pino does: the level, then every binding of every
 * ancestor in order (pino concatenates them, so a key bound twice is printed twice), then the
 * call's object, then `msg`. Records are lists of fields, so a repeated key stays visible.
 */
function recordingPino(records: Field[][], bindings: Field[] = []): PinoLike {
  const write =
    (level: string) =>
    (obj: object, msg: string): void => {
      records.push([['level', level], ...bindings, ...Object.entries(obj), ['msg', msg]]);
    };
  return {
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (more) => recordingPino(records, [...bindings, ...Object.entries(more)]),
  };
}

/** The values of `key` in `record`, one per occurrence. */
function valuesOf(record: Field[] | undefined, key: string): unknown[] {
  return (record ?? []).filter(([k]) => k === key).map(([, value]) => value);
}

/** Captures what the console logger writes to stderr. */
function captureStderr(): string[] {
  const lines: string[] = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
    lines.push(String(text));
    return true;
  });
  return lines;
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('loggers', () => {
  it('consoleLogger prints LEVEL [scope] message {meta} at or above its level only', () => {
    const lines = captureStderr();
    const log = consoleLogger('warn', 'chokaq').child('worker');
    log.info('hidden');
    log.warn('claim failed', { delayMs: 250 });
    log.error('plain');
    expect(lines).toEqual([
      'WARN [chokaq:worker] claim failed {"delayMs":250}\n',
      'ERROR [chokaq:worker] plain\n',
    ]);
  });

  it('consoleLogger joins nested scopes and leaves a scope field out of the meta', () => {
    const lines = captureStderr();
    consoleLogger('info').child('worker').child('heartbeat').warn('late', { scope: 'x', id: 'j1' });
    expect(lines).toEqual(['WARN [chokaq:worker:heartbeat] late {"id":"j1"}\n']);
  });

  it('fromPino passes meta first and message second, and scopes children with a binding', () => {
    const calls: unknown[][] = [];
    const make = (bindings: object): PinoLike => ({
      debug: (obj, msg) => calls.push(['debug', bindings, obj, msg]),
      info: (obj, msg) => calls.push(['info', bindings, obj, msg]),
      warn: (obj, msg) => calls.push(['warn', bindings, obj, msg]),
      error: (obj, msg) => calls.push(['error', bindings, obj, msg]),
      child: (more) => make({ ...bindings, ...more }),
    });
    const log = fromPino(make({}));
    log.info('started', { workerId: 'w1' });
    log.child('rescue').warn('zombie');
    expect(calls).toEqual([
      ['info', {}, { workerId: 'w1' }, 'started'],
      ['warn', { scope: 'rescue' }, {}, 'zombie'],
    ]);
  });

  it('fromPino gives a child of a child one scope key holding the joined scope', () => {
    const records: Field[][] = [];
    const log = fromPino(recordingPino(records));
    log.child('worker').child('heartbeat').warn('heartbeat failed', { runs: 2 });
    log.child('executor').child('job:email.send.v1').info('sent', { scope: 'mine', id: 'j1' });
    log.info('top');
    expect(records).toEqual([
      [
        ['level', 'warn'],
        ['scope', 'worker:heartbeat'],
        ['runs', 2],
        ['msg', 'heartbeat failed'],
      ],
      [
        ['level', 'info'],
        ['scope', 'executor:job:email.send.v1'],
        ['id', 'j1'],
        ['msg', 'sent'],
      ],
      [
        ['level', 'info'],
        ['msg', 'top'],
      ],
    ]);
    for (const record of records) {
      const keys = record.map(([key]) => key);
      expect(new Set(keys).size).toBe(keys.length);
    }
  });

  it("a provider logger writes to its own logger, else to ChokaQ's once adopted, children too", () => {
    const records: Field[][] = [];
    const engine = fromPino(recordingPino(records));
    vi.stubEnv('CHOKAQ_LOG_LEVEL', 'info'); // the test run sets it to silent
    const lines = captureStderr();

    const adopting = providerLogger(undefined, 'postgres');
    const listener = adopting.child('listen'); // made before the switch, as the store's are
    adopting.info('before');
    adopting.adopt(engine);
    adopting.info('after');
    listener.warn('lost');
    expect(lines).toEqual(['INFO [chokaq:postgres] before\n']);

    const ownRecords: Field[][] = [];
    const own = providerLogger(fromPino(recordingPino(ownRecords)), 'embedded');
    own.adopt(engine);
    own.child('vacuum').info('kept');

    expect(records.map((r) => [valuesOf(r, 'scope'), valuesOf(r, 'msg')])).toEqual([
      [['postgres'], ['after']],
      [['postgres:listen'], ['lost']],
    ]);
    expect(ownRecords.map((r) => [valuesOf(r, 'scope'), valuesOf(r, 'msg')])).toEqual([
      [['embedded:vacuum'], ['kept']],
    ]);
  });
});

describe("ChokaQ's logger reaches storage", () => {
  const pglite = new PGlite();

  afterAll(async () => {
    await pglite.close();
  });

  it('a provider without a logger logs through ChokaQ, scoped to the provider', async () => {
    const records: Field[][] = [];
    vi.stubEnv('CHOKAQ_LOG_LEVEL', 'debug'); // the console default would print every line
    const lines = captureStderr();
    const storage = embedded({ pglite, schema: uniqueSchema('log') });
    const chokaq = new ChokaQ({ storage, worker: false, logger: fromPino(recordingPino(records)) });
    await chokaq.start();
    await chokaq.stop();
    const migrated = records.find((r) => valuesOf(r, 'msg')[0] === 'schema migrated');
    expect(valuesOf(migrated, 'scope')).toEqual(['embedded']);
    expect(lines).toEqual([]);
  });

  it('a provider given its own logger keeps it', async () => {
    const engineRecords: Field[][] = [];
    const ownRecords: Field[][] = [];
    const storage = embedded({
      pglite,
      schema: uniqueSchema('log'),
      logger: fromPino(recordingPino(ownRecords)),
    });
    const chokaq = new ChokaQ({
      storage,
      worker: false,
      logger: fromPino(recordingPino(engineRecords)),
    });
    await chokaq.start();
    await chokaq.stop();
    expect(ownRecords.map((r) => valuesOf(r, 'msg')[0])).toContain('schema migrated');
    expect(engineRecords.map((r) => valuesOf(r, 'msg')[0])).not.toContain('schema migrated');
  });
});
