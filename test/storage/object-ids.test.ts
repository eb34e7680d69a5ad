/** Record ids shared by every engine and collection: OpenHIM's ObjectId shape, time first. */
import { describe, expect, it } from 'vitest';
import { isObjectId, newObjectId } from '../../service/storage/object-ids.js';

describe('record ids', () => {
  it('are 24 lower-case hex digits: epoch seconds, then random digits', () => {
    const id = newObjectId(new Date('2025-06-01T12:00:00.500Z'));
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(Number.parseInt(id.slice(0, 8), 16)).toBe(Date.parse('2025-06-01T12:00:00Z') / 1000);
    expect(newObjectId()).not.toBe(newObjectId());
  });

  it('take the current time by default', () => {
    const before = Math.floor(Date.now() / 1000);
    const seconds = Number.parseInt(newObjectId().slice(0, 8), 16);
    expect(seconds).toBeGreaterThanOrEqual(before);
    expect(seconds).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
  });

  it('recognises the new shape only (an old NeDB id is still a valid id, just not this shape)', () => {
    expect(isObjectId(newObjectId())).toBe(true);
    for (const value of ['aBcDeFgHiJkLmNoP', 'ABCDEF0123456789abcdef01', '0'.repeat(23), 12, null]) expect(isObjectId(value)).toBe(false);
  });

  it('stay distinct and random across many draws from the pooled random bytes', () => {
    const at = new Date('2025-06-01T12:00:00Z');
    // 2,000 ids use four refills of the 4 KB pool; within one second only the random part tells them apart.
    const randomParts = Array.from({ length: 2000 }, () => newObjectId(at).slice(8));
    expect(new Set(randomParts).size).toBe(randomParts.length);
    // Every hex digit turns up in every position: no slice of the pool is reused or left as zeros.
    for (let position = 0; position < 16; position++) expect(new Set(randomParts.map((part) => part[position])).size).toBe(16);
  });
});
