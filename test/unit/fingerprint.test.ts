import { describe, expect, it } from 'vitest';
import { errorSignature, normaliseMessage } from '../../src/job/fingerprint.js';

describe('normaliseMessage', () => {
  it.each([
    ['order 1234 failed after 2.5 s', 'order <n> failed after <n> s'],
    ['user 3f2a9c1e-0b4d-4e8f-9a7b-1c2d3e4f5a6b missing', 'user <uuid> missing'],
    ['no such key \'abc\' in "def" or `ghi`', 'no such key <q> in <q> or <q>'],
    ['object 5f3e2d1c0b9a8f7e gone', 'object <id> gone'],
    ['deadline at 2026-12-01T10:00:00.123Z passed', 'deadline at <time> passed'],
    ['user42 and   spaces', 'user<n> and spaces'],
    ['plain words stay', 'plain words stay'],
    ['job 01ARZ3NDEKTSV4RRFFQ69G5FAV lost', 'job <id> lost'],
    ['job 01arz3ndektsv4rrffq69g5fav lost', 'job <id> lost'],
    ['order ord_8f3kq9zx and cus-A1B2C3D4E5 failed', 'order ord_<id> and cus-<id> failed'],
    ['Http2Session closed by base64encoded utf8', 'Http<n>Session closed by <id> utf<n>'],
    ['session abc12 short', 'session abc<n> short'],
    ['Cancelled by alice', 'Cancelled by <actor>'],
    ['Cancelled by ops team 7 while running', 'Cancelled by <actor> while running'],
    ['Cancelled by cli:bob@host-1: the run was lost', 'Cancelled by <actor>: the run was lost'],
    ['Not cancelled by alice', 'Not cancelled by alice'],
  ])('%s → %s', (message, expected) => {
    expect(normaliseMessage(message)).toBe(expected);
  });

  it('keeps at most 300 characters', () => {
    expect(normaliseMessage('x'.repeat(500))).toHaveLength(300);
  });
});

describe('errorSignature', () => {
  const stack = (message: string, frames: string[]) =>
    [`TypeError: ${message}`, ...frames.map((f) => `    at ${f}`)].join('\n');

  it('reads the class, the normalised message and the first frame outside node_modules and node internals', () => {
    const signature = errorSignature(
      stack('card 4242 declined', [
        'Object.charge (/srv/app/node_modules/stripe/lib/x.js:1:1)',
        'process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
        'async chargeCard (file:///srv/app/src/jobs/billing.js:42:7)',
        'run (/srv/app/src/other.js:1:1)',
      ]),
    );
    expect(signature).toMatchObject({
      errorClass: 'TypeError',
      message: 'card <n> declined',
      frame: 'chargeCard (jobs/billing.js)',
    });
    expect(signature.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  });

  it('is stable across line numbers, install paths and variable values', () => {
    const a = errorSignature(stack('card 4242 declined', ['charge (/a/b/jobs/billing.js:42:7)']));
    const b = errorSignature(stack('card 1111 declined', ['charge (/x/y/jobs/billing.js:99:1)']));
    expect(a.fingerprint).toBe(b.fingerprint);
  });

  it('differs by class, message and frame', () => {
    const base = errorSignature(stack('card declined', ['charge (/a/jobs/billing.js:1:1)']));
    const otherFrame = errorSignature(stack('card declined', ['refund (/a/jobs/billing.js:1:1)']));
    const otherText = errorSignature(stack('card expired', ['charge (/a/jobs/billing.js:1:1)']));
    const otherClass = errorSignature(
      'RangeError: card declined\n    at charge (/a/jobs/billing.js:1:1)',
    );
    const all = [base, otherFrame, otherText, otherClass].map((s) => s.fingerprint);
    expect(new Set(all).size).toBe(4);
  });

  it('reads ChokaQ texts without a stack: FATAL prefix stripped, no class, no frame', () => {
    expect(errorSignature('FATAL: Error: bad input 7')).toMatchObject({
      errorClass: 'Error',
      message: 'bad input <n>',
      frame: null,
    });
    expect(errorSignature('Cancelled by alice')).toMatchObject({
      errorClass: 'Error',
      message: 'Cancelled by <actor>',
      frame: null,
    });
    // One group for every canceller, and one per way of cancelling.
    const byAlice = errorSignature('Cancelled by alice while running').fingerprint;
    expect(errorSignature('Cancelled by bob 2 while running').fingerprint).toBe(byAlice);
    expect(errorSignature('Cancelled by alice').fingerprint).not.toBe(byAlice);
    // ULIDs and mixed ids do not split a group either.
    expect(errorSignature('order 01ARZ3NDEKTSV4RRFFQ69G5FAV failed').fingerprint).toBe(
      errorSignature('order 01BX5ZZKBKACTAV9WEVGEMMVRZ failed').fingerprint,
    );
    expect(errorSignature('Timeout: execution exceeded 3000 ms').message).toBe(
      'execution exceeded <n> ms',
    );
    expect(errorSignature('').fingerprint).toMatch(/^[0-9a-f]{16}$/);
  });
});
