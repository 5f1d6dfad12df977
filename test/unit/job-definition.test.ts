import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ChokaQError } from '../../src/errors.js';
import { defineJob, parsePayload } from '../../src/job/define-job.js';
import {
  LIMITS,
  normalizeIdempotencyKey,
  serializePayload,
  checkEnvelopeText,
  validateJobId,
  validatePriority,
  validateQueueName,
  validateTypeKey,
} from '../../src/job/envelope.js';
import { JobRegistry } from '../../src/job/registry.js';

function thrownCode(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof ChokaQError ? error.code : `not a ChokaQError: ${String(error)}`;
  }
  return undefined;
}

async function rejection(promise: Promise<unknown>): Promise<ChokaQError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ChokaQError) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

const noop = (): void => {};

describe('validateQueueName', () => {
  it.each([
    'default',
    'a',
    'emails.high',
    'tenant:42',
    'bulk-import_v2',
    'A.b:C-d_9',
    'q'.repeat(255),
  ])('accepts %j', (queue) => {
    expect(thrownCode(() => validateQueueName(queue))).toBeUndefined();
  });

  it.each(['', 'q'.repeat(256), 'a b', 'x;drop', ' default', 'default\n', 'é', 'a/b', "o'neil"])(
    'rejects %j with CHOKAQ_INVALID_QUEUE',
    (queue) => {
      expect(thrownCode(() => validateQueueName(queue))).toBe('CHOKAQ_INVALID_QUEUE');
    },
  );

  it('rejects non-strings', () => {
    expect(thrownCode(() => validateQueueName(undefined))).toBe('CHOKAQ_INVALID_QUEUE');
    expect(thrownCode(() => validateQueueName(42))).toBe('CHOKAQ_INVALID_QUEUE');
  });
});

describe('validateTypeKey', () => {
  it.each(['email.send.v1', 'x', 'Any Chars / Allowed!', 't'.repeat(LIMITS.typeLength)])(
    'accepts %j',
    (type) => {
      expect(thrownCode(() => validateTypeKey(type))).toBeUndefined();
    },
  );

  it.each(['', '   ', '\t', 't'.repeat(256)])('rejects %j with CHOKAQ_INVALID_JOB_TYPE', (type) => {
    expect(thrownCode(() => validateTypeKey(type))).toBe('CHOKAQ_INVALID_JOB_TYPE');
  });

  it('rejects non-strings', () => {
    expect(thrownCode(() => validateTypeKey(null))).toBe('CHOKAQ_INVALID_JOB_TYPE');
    expect(thrownCode(() => validateTypeKey(1))).toBe('CHOKAQ_INVALID_JOB_TYPE');
  });
});

describe('validateJobId', () => {
  it('accepts ids up to 50 characters', () => {
    expect(LIMITS.idLength).toBe(50);
    expect(thrownCode(() => validateJobId('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'))).toBeUndefined();
    expect(thrownCode(() => validateJobId('i'.repeat(50)))).toBeUndefined();
  });

  it.each(['', '  ', 'i'.repeat(51)])('rejects %j with CHOKAQ_INVALID_JOB_ID', (id) => {
    expect(thrownCode(() => validateJobId(id))).toBe('CHOKAQ_INVALID_JOB_ID');
  });

  it('rejects non-strings', () => {
    expect(thrownCode(() => validateJobId(7))).toBe('CHOKAQ_INVALID_JOB_ID');
  });
});

describe('validatePriority', () => {
  it.each([0, 10, -5, 2_147_483_647, -2_147_483_648])('accepts %d', (priority) => {
    expect(thrownCode(() => validatePriority(priority))).toBeUndefined();
  });

  it.each([2_147_483_648, -2_147_483_649, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '5', null])(
    'rejects %j with CHOKAQ_INVALID_PRIORITY',
    (priority) => {
      expect(thrownCode(() => validatePriority(priority))).toBe('CHOKAQ_INVALID_PRIORITY');
    },
  );
});

describe('normalizeIdempotencyKey', () => {
  it('trims the key', () => {
    expect(normalizeIdempotencyKey('  order-42  ')).toBe('order-42');
    expect(normalizeIdempotencyKey('order-42')).toBe('order-42');
  });

  it('reads blank, null and undefined as no key', () => {
    expect(normalizeIdempotencyKey('')).toBeNull();
    expect(normalizeIdempotencyKey('   \t\n')).toBeNull();
    expect(normalizeIdempotencyKey(null)).toBeNull();
    expect(normalizeIdempotencyKey(undefined)).toBeNull();
  });

  it('accepts 255 characters and rejects 256', () => {
    expect(normalizeIdempotencyKey('k'.repeat(255))).toBe('k'.repeat(255));
    expect(thrownCode(() => normalizeIdempotencyKey('k'.repeat(256)))).toBe(
      'CHOKAQ_INVALID_IDEMPOTENCY_KEY',
    );
  });

  it('measures the length after trimming', () => {
    expect(normalizeIdempotencyKey(`  ${'k'.repeat(255)}  `)).toBe('k'.repeat(255));
  });
});

describe('checkEnvelopeText', () => {
  it('accepts null, undefined and values at the limit', () => {
    expect(checkEnvelopeText(null, 'tags', 1000)).toBeNull();
    expect(checkEnvelopeText(undefined, 'tags', 1000)).toBeNull();
    expect(checkEnvelopeText('c'.repeat(100), 'createdBy', 100)).toBe('c'.repeat(100));
  });

  it('rejects values over the limit and non-strings, naming the field and the value', () => {
    expect(thrownCode(() => checkEnvelopeText('c'.repeat(101), 'createdBy', 100))).toBe(
      'CHOKAQ_INVALID_ENVELOPE',
    );
    expect(() => checkEnvelopeText(42, 'items[2].tags', 1000)).toThrow(
      'items[2].tags must be a string of at most 1000 characters, or null, got 42 (number)',
    );
  });
});

describe('serializePayload', () => {
  it('returns the JSON text', () => {
    expect(serializePayload({ to: 'a@b.c', n: [1, 2] }, 1000)).toBe('{"to":"a@b.c","n":[1,2]}');
  });

  it('serializes undefined as null', () => {
    expect(serializePayload(undefined, 10)).toBe('null');
  });

  it('measures UTF-8 bytes, not characters', () => {
    // "é" is 2 bytes, "😀" is 4 bytes: {"s":"é😀"} = 8 ASCII bytes + 2 + 4 = 14 bytes, 11 UTF-16 units
    const payload = { s: 'é😀' };
    const json = JSON.stringify(payload);
    expect(json).toHaveLength(11);
    expect(Buffer.byteLength(json, 'utf8')).toBe(14);
    expect(serializePayload(payload, 14)).toBe(json);
    expect(thrownCode(() => serializePayload(payload, 13))).toBe('CHOKAQ_PAYLOAD_TOO_LARGE');
    expect(thrownCode(() => serializePayload(payload, 11))).toBe('CHOKAQ_PAYLOAD_TOO_LARGE');
  });

  it('counts bytes only when the UTF-16 length could exceed the limit: "€" is 3 bytes, 1 unit', () => {
    const json = JSON.stringify('€€€'); // 5 units, 2 + 9 = 11 bytes
    expect(serializePayload('€€€', 15)).toBe(json); // 5 × 3 ≤ 15: no count needed
    expect(serializePayload('€€€', 11)).toBe(json);
    expect(thrownCode(() => serializePayload('€€€', 10))).toBe('CHOKAQ_PAYLOAD_TOO_LARGE');
  });

  it('accepts exactly maxBytes and rejects maxBytes + 1', () => {
    const payload = 'ü'.repeat(500); // "…" quotes + 1000 bytes = 1002 bytes
    expect(serializePayload(payload, 1002)).toHaveLength(502);
    let caught: unknown;
    try {
      serializePayload('ü'.repeat(500) + 'a', 1002);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ChokaQError);
    expect((caught as ChokaQError).code).toBe('CHOKAQ_PAYLOAD_TOO_LARGE');
    expect((caught as ChokaQError).message).toContain('1003');
  });

  it('rejects a BigInt payload with CHOKAQ_PAYLOAD_INVALID', () => {
    expect(thrownCode(() => serializePayload({ amount: 10n }, 1000))).toBe(
      'CHOKAQ_PAYLOAD_INVALID',
    );
  });

  it('rejects circular and unserializable payloads with CHOKAQ_PAYLOAD_INVALID', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(thrownCode(() => serializePayload(circular, 1000))).toBe('CHOKAQ_PAYLOAD_INVALID');
    expect(thrownCode(() => serializePayload(() => 1, 1000))).toBe('CHOKAQ_PAYLOAD_INVALID');
    expect(thrownCode(() => serializePayload(Symbol('x'), 1000))).toBe('CHOKAQ_PAYLOAD_INVALID');
  });
});

describe('defineJob', () => {
  it('applies the documented defaults', () => {
    const job = defineJob<{ to: string }>({ type: 'email.send.v1', handle: noop });
    expect(job.type).toBe('email.send.v1');
    expect(job.queue).toBe('default');
    expect(job.priority).toBe(10);
    expect(job.retry).toBeUndefined();
    expect(job.timeoutMs).toBeUndefined();
    expect(job.schema).toBeUndefined();
    expect(job.handle).toBe(noop);
  });

  it('keeps explicit options and converts the timeout', () => {
    const retry = { maxAttempts: 5 };
    const job = defineJob({
      type: 'report.v1',
      queue: 'reports',
      priority: -3,
      retry,
      timeout: '2m',
      handle: noop,
    });
    expect(job).toMatchObject({ queue: 'reports', priority: -3, retry, timeoutMs: 120_000 });
  });

  it('returns a frozen definition', () => {
    const job = defineJob({ type: 'frozen.v1', handle: noop });
    expect(Object.isFrozen(job)).toBe(true);
  });

  it('rejects an invalid type key, queue, priority, timeout or handle', () => {
    expect(thrownCode(() => defineJob({ type: ' ', handle: noop }))).toBe(
      'CHOKAQ_INVALID_JOB_TYPE',
    );
    expect(thrownCode(() => defineJob({ type: 't.v1', queue: 'a b', handle: noop }))).toBe(
      'CHOKAQ_INVALID_QUEUE',
    );
    expect(thrownCode(() => defineJob({ type: 't.v1', priority: 0.5, handle: noop }))).toBe(
      'CHOKAQ_INVALID_PRIORITY',
    );
    expect(thrownCode(() => defineJob({ type: 't.v1', timeout: -1, handle: noop }))).toBe(
      'CHOKAQ_INVALID_DURATION',
    );
    expect(
      thrownCode(() => defineJob({ type: 't.v1', handle: undefined as unknown as () => void })),
    ).toBe('CHOKAQ_INVALID_CONFIG');
  });
});

describe('parsePayload', () => {
  const signup = defineJob({
    type: 'user.signup.v1',
    payload: z.object({
      email: z.string().email(),
      plan: z.enum(['free', 'pro']).default('free'),
      seats: z.coerce.number().int(),
      tags: z.array(z.object({ name: z.string().min(1) })).optional(),
    }),
    handle: noop,
  });

  it('returns the schema output (defaults applied, values coerced)', async () => {
    await expect(parsePayload(signup, { email: 'a@example.com', seats: '3' })).resolves.toEqual({
      email: 'a@example.com',
      plan: 'free',
      seats: 3,
    });
  });

  it('rejects an invalid payload with CHOKAQ_PAYLOAD_INVALID listing the path', async () => {
    const error = await rejection(parsePayload(signup, { email: 'not-an-email', seats: 1 }));
    expect(error.code).toBe('CHOKAQ_PAYLOAD_INVALID');
    expect(error.message).toContain("'user.signup.v1'");
    expect(error.message).toMatch(/email: /);
  });

  it('lists nested paths joined with dots and every issue', async () => {
    const error = await rejection(
      parsePayload(signup, { email: 'x', seats: 1.5, tags: [{ name: 'ok' }, { name: '' }] }),
    );
    expect(error.code).toBe('CHOKAQ_PAYLOAD_INVALID');
    expect(error.message).toMatch(/tags\.1\.name: /);
    expect(error.message).toMatch(/seats: /);
    expect(error.message).toMatch(/email: /);
    expect(error.message.split('; ')).toHaveLength(3);
  });

  it('reports a root-level issue without a path', async () => {
    const root = defineJob({ type: 'root.v1', payload: z.string(), handle: noop });
    const error = await rejection(parsePayload(root, 42));
    expect(error.code).toBe('CHOKAQ_PAYLOAD_INVALID');
    expect(error.message).toMatch(/^payload of 'root\.v1' is invalid: \w/);
    expect(error.message).toContain('expected string');
  });

  it('supports async schemas', async () => {
    const job = defineJob({
      type: 'async.v1',
      payload: z
        .string()
        .refine(async (s) => Promise.resolve(s.startsWith('ok')), 'must start with ok'),
      handle: noop,
    });
    await expect(parsePayload(job, 'okay')).resolves.toBe('okay');
    const error = await rejection(parsePayload(job, 'nope'));
    expect(error.message).toContain('must start with ok');
  });

  it('passes the value through untouched without a schema', async () => {
    const job = defineJob<{ n: number }>({ type: 'raw.v1', handle: noop });
    const value = { n: 1, extra: true };
    await expect(parsePayload(job, value)).resolves.toBe(value);
  });
});

describe('JobRegistry', () => {
  const email = defineJob({ type: 'email.v1', handle: noop });
  const report = defineJob({ type: 'Report.Daily.v2', handle: noop });

  it('finds definitions ignoring case', () => {
    const registry = new JobRegistry([email, report]);
    expect(registry.size).toBe(2);
    expect(registry.find('email.v1')).toBe(email);
    expect(registry.find('EMAIL.V1')).toBe(email);
    expect(registry.find('report.daily.V2')).toBe(report);
    expect(registry.find('email.v2')).toBeUndefined();
  });

  it('lists the registered keys as defined', () => {
    expect(
      new JobRegistry([email, report])
        .all()
        .map((d) => d.type)
        .sort(),
    ).toEqual(['Report.Daily.v2', 'email.v1']);
  });

  it('is empty without definitions', () => {
    const registry = new JobRegistry([]);
    expect(registry.size).toBe(0);
    expect(registry.all()).toEqual([]);
    expect(registry.find('email.v1')).toBeUndefined();
  });

  it('rejects two definitions whose keys differ only in case', () => {
    const shouting = defineJob({ type: 'EMAIL.v1', handle: noop });
    expect(thrownCode(() => new JobRegistry([email, shouting]))).toBe('CHOKAQ_DUPLICATE_JOB_TYPE');
    expect(thrownCode(() => new JobRegistry([email, email]))).toBe('CHOKAQ_DUPLICATE_JOB_TYPE');
  });
});
