import { describe, expect, it } from 'vitest';
import { ChokaQ, defineJob, memory, silentLogger } from '../../src/index.js';
import { MAX_DEPENDENCIES, checkDependsOn } from '../../src/enqueue/dependencies.js';

describe('dependsOn checks', () => {
  it('refuses a list that is no array, or longer than the bound, naming the field', () => {
    expect(() => checkDependsOn('a-job', 'options.dependsOn', 'me')).toThrow(
      expect.objectContaining({ code: 'CHOKAQ_INVALID_ARGUMENT', field: 'options.dependsOn' }),
    );
    const huge = Array.from({ length: MAX_DEPENDENCIES + 1 }, (_, i) => `job-${i}`);
    expect(() => checkDependsOn(huge, 'options.dependsOn', 'me')).toThrow(
      expect.objectContaining({ code: 'CHOKAQ_INVALID_ARGUMENT', field: 'options.dependsOn' }),
    );
    expect(checkDependsOn(huge.slice(1), 'options.dependsOn', 'me')).toHaveLength(MAX_DEPENDENCIES);
  });

  it('refuses entries of the wrong type, blank or too long ids, and unknown keys', () => {
    const cases: [unknown, string, string][] = [
      [[42], 'CHOKAQ_INVALID_ARGUMENT', 'options.dependsOn[0]'],
      [[''], 'CHOKAQ_INVALID_JOB_ID', 'options.dependsOn[0]'],
      [['x'.repeat(51)], 'CHOKAQ_INVALID_JOB_ID', 'options.dependsOn[0]'],
      [[{ id: 'a', when: 'now' }], 'CHOKAQ_UNKNOWN_OPTION', 'options.dependsOn[0].when'],
      [[{ onDeath: 'skip' }], 'CHOKAQ_INVALID_JOB_ID', 'options.dependsOn[0].id'],
    ];
    for (const [value, code, field] of cases) {
      expect(() => checkDependsOn(value, 'options.dependsOn', 'me'), field).toThrow(
        expect.objectContaining({ code, field }),
      );
    }
  });

  it('refuses a workflow built by something other than a function, writing nothing', async () => {
    const job = defineJob({ type: 'dep.check.v1', handle: () => undefined });
    const chokaq = new ChokaQ({
      storage: memory(),
      jobs: [job],
      logger: silentLogger,
      worker: false,
    });
    await expect(chokaq.enqueueWorkflow('not a function' as never)).rejects.toMatchObject({
      code: 'CHOKAQ_INVALID_ARGUMENT',
      field: 'build',
    });
    expect((await chokaq.queues.stats()).every((s) => s.awaiting + s.pending === 0)).toBe(true);
    await chokaq.stop();
  });
});
