/**
 * Record ids, the same for every engine and every collection: 24 lower-case hex digits in MongoDB's ObjectId layout
 * (8 digits of epoch seconds, then 16 random ones), so scripts written against OpenHIM can keep and compare them.
 * Records stored before ids took this shape keep their old ids; nothing here assumes every stored id matches.
 */
import { randomBytes, randomFillSync } from 'node:crypto';

/** What a new id looks like. */
export const OBJECT_ID = /^[0-9a-f]{24}$/;

// Random bytes drawn 4 KB at a time: one call to the system's generator per 512 ids rather than one per id (the
// per-call cost was 2% of the proxy's CPU at full speed). The bytes are the same cryptographic randomness.
const POOL = Buffer.alloc(4096);
let poolOffset = POOL.length;

function randomHex8(): string {
  if (poolOffset + 8 > POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  const hex = POOL.toString('hex', poolOffset, poolOffset + 8);
  poolOffset += 8;
  return hex;
}

/** A new id whose first 8 hex digits are the epoch seconds of `at`; throws RangeError outside 1970 to 2106. */
export function newObjectId(at: Date = new Date()): string {
  const seconds = Math.floor(at.getTime() / 1000);
  // Eight hex digits hold 1970 to 2106; anything else could not be read back as a time.
  if (!Number.isSafeInteger(seconds) || seconds < 0 || seconds > 0xffffffff) throw new RangeError(`Cannot make an id for ${String(at)}`);
  return seconds.toString(16).padStart(8, '0') + randomHex8();
}

// MongoDB's own ObjectId layout after the seconds: 5 random bytes drawn once per process, then a 3-byte counter that
// starts at a random value. Ids made one after another then sort in the order they were made, so a B-tree keyed by
// them (the log's id index, bodies.sqlite's paths) appends to its last page instead of dirtying a random page of
// the current second's range per insert: measured in docs/BENCHMARKS.md, "Issue 19: storage cost per transaction".
const PROCESS_PART = randomBytes(5).toString('hex');
let counter = randomBytes(3).readUIntBE(0, 3);

/**
 * A new id in MongoDB's ObjectId layout (seconds, a per-process random part, a counter): unique like newObjectId's,
 * and increasing within a process; for records written at a high rate whose ids are never secrets.
 */
export function newSequentialObjectId(at: Date = new Date()): string {
  const seconds = Math.floor(at.getTime() / 1000);
  if (!Number.isSafeInteger(seconds) || seconds < 0 || seconds > 0xffffffff) throw new RangeError(`Cannot make an id for ${String(at)}`);
  counter = (counter + 1) & 0xffffff;
  return seconds.toString(16).padStart(8, '0') + PROCESS_PART + counter.toString(16).padStart(6, '0');
}

/** True when `value` has the shape of a new id. */
export function isObjectId(value: unknown): value is string {
  return typeof value === 'string' && OBJECT_ID.test(value);
}
