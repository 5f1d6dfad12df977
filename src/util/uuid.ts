import { randomFillSync } from 'node:crypto';

/** Random bytes fetched from the OS in one call and handed out in slices (one call per ~450 ids). */
const POOL_SIZE = 8192;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let poolOffset = POOL_SIZE;

/** `size` fresh random bytes, copied out of the pool. */
function randomBytesFromPool(size: number): Buffer {
  if (poolOffset + size > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = Buffer.from(pool.subarray(poolOffset, poolOffset + size));
  poolOffset += size;
  return bytes;
}

let lastMs = 0;
let sequence = 0;

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix ms time, then random bits, so ids sort by creation time.
 * Within one millisecond a 12-bit counter keeps ids from one process increasing.
 */
export function uuidv7(nowMs: number = Date.now()): string {
  const bytes = randomBytesFromPool(16);
  if (nowMs > lastMs) {
    lastMs = nowMs;
    sequence = bytes.readUInt16BE(6) & 0x7ff; // random start, with room to count up
  } else {
    sequence = (sequence + 1) & 0xfff;
    if (sequence === 0) lastMs += 1; // counter wrapped: borrow the next millisecond
  }
  bytes.writeUIntBE(lastMs, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | ((bytes[8] ?? 0) & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
