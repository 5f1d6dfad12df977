import { randomFillSync } from 'node:crypto';

/** Random bytes fetched from the OS in one call and read in slices (one call per ~800 ids). */
const POOL_SIZE = 8192;
/** Random bytes per id: the 74 bits after the time (counter start, variant, the rest). */
const RANDOM_BYTES = 10;
const pool = Buffer.allocUnsafe(POOL_SIZE);
let poolOffset = POOL_SIZE;

/**
 * The id's text is written here, then read as one flat string: no Buffer, hex slices or string
 * concatenations per id (enqueueMany makes an id per job, and each piece would be garbage).
 */
const text = Buffer.from('00000000-0000-0000-0000-000000000000', 'latin1');
/** Where the two hex digits of each of the 16 bytes go in {@link text}. */
const DIGITS_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
/** The character codes of the two lower-case hex digits of each byte value. */
const HEX = Buffer.from(
  Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0')).join(''),
  'latin1',
);

/** Writes byte `index` (0–15) of the id, `value`'s low 8 bits, into {@link text}. */
function put(index: number, value: number): void {
  const at = DIGITS_AT[index] as number;
  const digits = 2 * (value & 0xff);
  text[at] = HEX[digits] as number;
  text[at + 1] = HEX[digits + 1] as number;
}

let lastMs = 0;
let sequence = 0;

/**
 * A UUIDv7 (RFC 9562): 48 bits of Unix ms time, then random bits, so ids sort by creation time.
 * Within one millisecond a 12-bit counter keeps ids from one process increasing.
 */
export function uuidv7(nowMs: number = Date.now()): string {
  if (poolOffset + RANDOM_BYTES > POOL_SIZE) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const at = poolOffset;
  poolOffset += RANDOM_BYTES;
  if (nowMs > lastMs) {
    lastMs = nowMs;
    // random start, with room to count up
    sequence = (((pool[at] ?? 0) << 8) | (pool[at + 1] ?? 0)) & 0x7ff;
  } else {
    sequence = (sequence + 1) & 0xfff;
    if (sequence === 0) lastMs += 1; // counter wrapped: borrow the next millisecond
  }
  const high = Math.floor(lastMs / 0x100000000); // the time's top 16 bits
  const low = lastMs >>> 0; // and its low 32
  put(0, high >>> 8);
  put(1, high);
  put(2, low >>> 24);
  put(3, low >>> 16);
  put(4, low >>> 8);
  put(5, low);
  put(6, 0x70 | (sequence >> 8));
  put(7, sequence);
  put(8, 0x80 | ((pool[at + 2] ?? 0) & 0x3f));
  for (let index = 9; index < 16; index++) put(index, pool[at + index - 6] ?? 0);
  return text.toString('latin1');
}
