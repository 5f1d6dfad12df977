import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, FatalError, memory, type Logger } from '../../src/index.js';
import { LOG_EVENTS } from '../../src/observability/logging/log-events.js';
import { waitForJob } from '../../src/testing/index.js';

const SRC = new URL('../../src/', import.meta.url).pathname;

/** Every .ts file under src/. */
async function sourceFiles(dir = SRC): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await sourceFiles(path)));
    else if (entry.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

describe('log events', () => {
  it('have unique ids within the ranges of their families', () => {
    const ids = Object.values(LOG_EVENTS);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect([1, 2, 4, 5, 6, 7]).toContain(Math.floor(id / 1000));
  });

  it('are listed in docs/observability.md, id and name, exactly', async () => {
    const doc = await readFile(new URL('../../docs/observability.md', import.meta.url), 'utf8');
    const listed = [...doc.matchAll(/^\| (\d{4}) +\| `(\w+)` +\|/gm)].map((m) => [
      Number(m[1]),
      m[2],
    ]);
    expect(Object.fromEntries(listed.map(([id, name]) => [name, id]))).toEqual(LOG_EVENTS);
  });

  it('name every log record the engine writes (a source scan of src/)', async () => {
    const missing: string[] = [];
    for (const file of await sourceFiles()) {
      if (file.endsWith('observability/logging/logger.ts')) continue;
      const text = await readFile(file, 'utf8');
      const call = /\b(?:logger|log)\.(?:debug|info|warn|error)\(/g;
      for (const match of text.matchAll(call)) {
        // The call's arguments: up to the first `)` that closes it, at most a few lines on.
        const after = text.slice(match.index, match.index + 400);
        let depth = 0;
        let end = after.length;
        for (let i = after.indexOf('('); i < after.length; i++) {
          if (after[i] === '(') depth++;
          else if (after[i] === ')' && --depth === 0) {
            end = i;
            break;
          }
        }
        if (!after.slice(0, end).includes('logEvent(')) {
          const line = text.slice(0, match.index).split('\n').length;
          missing.push(`${file.slice(SRC.length)}:${line}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('carry event, eventId and the job on the records of a run', async () => {
    const records: { level: string; message: string; meta: Record<string, unknown> }[] = [];
    const capture = (scope: string): Logger => ({
      debug: (message, meta) => records.push({ level: 'debug', message, meta: meta ?? {} }),
      info: (message, meta) => records.push({ level: 'info', message, meta: meta ?? {} }),
      warn: (message, meta) => records.push({ level: 'warn', message, meta: meta ?? {} }),
      error: (message, meta) => records.push({ level: 'error', message, meta: meta ?? {} }),
      child: (child) => capture(`${scope}:${child}`),
    });
    const doomed = defineJob({
      type: 'log.doomed.v1',
      queue: 'logs',
      handle: (_payload: undefined, ctx) => {
        ctx.log.info('about to fail');
        throw new FatalError('never works');
      },
    });
    const chokaq = new ChokaQ({
      storage: memory(),
      jobs: [doomed],
      logger: capture('t'),
      pollInterval: 20,
    });
    await chokaq.start();
    const { id } = await chokaq.enqueue(doomed, undefined);
    await waitForJob(chokaq, id, 'dead');
    await chokaq.stop();
    const engine = records.filter((r) => r.message !== 'about to fail');
    expect(engine.map((r) => r.meta.event)).toEqual(
      expect.arrayContaining(['WorkerStarted', 'JobDeadLettered', 'WorkerStopped']),
    );
    for (const record of engine)
      expect(record.meta.eventId).toBe(LOG_EVENTS[record.meta.event as keyof typeof LOG_EVENTS]);
    const dead = engine.find((r) => r.meta.event === 'JobDeadLettered');
    expect(dead?.meta).toMatchObject({ id, type: 'log.doomed.v1', queue: 'logs', reason: 'Fatal' });
    const own = records.find((r) => r.message === 'about to fail');
    expect(own?.meta).toEqual({ id, type: 'log.doomed.v1', queue: 'logs', attempt: 1 });
  });
});
