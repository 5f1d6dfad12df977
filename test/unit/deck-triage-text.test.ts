/**
 * The Deck's triage text and scales, as pure functions: an error's message before the engine's
 * prefixes, a stack's engine frames folded, and a chart scale that one spike cannot flatten.
 */
import { describe, expect, it } from 'vitest';
import { compactCount, durationUnit, spikeCap } from '../../src/deck/ui/lib/chart-scale.js';
import { errorHead, stackParts } from '../../src/deck/ui/lib/error-text.js';

describe('errorHead', () => {
  it('puts the message first and the engine prefix and class in badges', () => {
    expect(errorHead('FATAL: FatalError: card declined\n    at x (/app/a.js:1:1)')).toEqual({
      badges: ['FATAL', 'FatalError'],
      message: 'card declined',
    });
    expect(errorHead('TypeError: x is not a function')).toEqual({
      badges: ['TypeError'],
      message: 'x is not a function',
    });
    expect(errorHead('Cancelled by ops')).toEqual({ badges: [], message: 'Cancelled by ops' });
  });
});

describe('stackParts', () => {
  it("folds the engine's frames and keeps the job's own", () => {
    const text = [
      'Error: boom',
      '    at chargeCard (/app/src/jobs/charge.ts:10:5)',
      '    at runHandler (/app/node_modules/chokaq/dist/runtime/run.js:40:3)',
      '    at Worker.run (/work/chokaq/dist/runtime/worker.js:88:9)',
      '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
      '    at helper (/app/src/lib/helper.ts:3:1)',
    ].join('\n');
    expect(stackParts(text)).toEqual([
      { engine: false, lines: ['    at chargeCard (/app/src/jobs/charge.ts:10:5)'] },
      {
        engine: true,
        lines: [
          '    at runHandler (/app/node_modules/chokaq/dist/runtime/run.js:40:3)',
          '    at Worker.run (/work/chokaq/dist/runtime/worker.js:88:9)',
          '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
        ],
      },
      { engine: false, lines: ['    at helper (/app/src/lib/helper.ts:3:1)'] },
    ]);
    expect(stackParts('just a message')).toEqual([]);
  });
});

describe('spikeCap', () => {
  const times = Array.from({ length: 40 }, (_, k) => k * 1000);
  it('caps the scale above the 95th percentile and names the spike', () => {
    const values = times.map((_, k) => (k === 17 ? 5000 : 10 + (k % 5)));
    const cap = spikeCap(times, [values]);
    expect(cap?.max).toBeGreaterThanOrEqual(14);
    expect(cap?.max).toBeLessThan(30);
    expect(cap?.spikes).toEqual([{ at: 17_000, value: 5000 }]);
  });
  it('leaves a scale without a spike (or with too few points) alone', () => {
    expect(spikeCap(times, [times.map((_, k) => 10 + k)])).toBeNull();
    expect(spikeCap(times, [times.map(() => 0)])).toBeNull();
    expect(spikeCap(times.slice(0, 5), [[1, 1, 1, 1, 900]])).toBeNull();
    // Idle, then busy: the busy intervals are the level, not spikes above the idle ones.
    expect(spikeCap(times, [times.map((_, k) => (k < 28 ? 0 : 200 + k))])).toBeNull();
    // Five high points are a level too.
    expect(spikeCap(times, [times.map((_, k) => (k % 8 === 0 ? 5000 : 10))])).toBeNull();
  });
});

describe('units', () => {
  it('picks one duration unit per axis, and writes counts short', () => {
    expect(durationUnit(900).name).toBe('ms');
    expect(durationUnit(12_000).name).toBe('s');
    expect(durationUnit(150_000).name).toBe('min');
    expect(durationUnit(3 * 3_600_000).name).toBe('h');
    expect([950, 1200, 45_000, 3_400_000].map(compactCount)).toEqual([
      '950',
      '1.2k',
      '45k',
      '3.4M',
    ]);
  });
});
