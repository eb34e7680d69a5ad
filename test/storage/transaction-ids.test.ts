/** Transaction ids and their days, shared by every engine: the id alone must name the request's UTC day. */
import { describe, expect, it } from 'vitest';
import { dayOf, dayOfId, isDay, newTransactionId } from '../../service/storage/transaction-ids.js';

describe('transaction ids', () => {
  it('encodes the request second in the first 8 hex characters, then a part of this process and a counter', () => {
    const id = newTransactionId(new Date('2024-03-01T10:00:00.900Z'));
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(Number.parseInt(id.slice(0, 8), 16)).toBe(Date.parse('2024-03-01T10:00:00Z') / 1000);
    expect(newTransactionId(new Date(0))).not.toBe(newTransactionId(new Date(0)));
  });

  it('sort in the order they were made, so the indexes keyed by them grow at their ends', () => {
    const at = new Date('2024-03-01T10:00:00Z');
    const ids = Array.from({ length: 5000 }, () => newTransactionId(at));
    expect(new Set(ids).size).toBe(ids.length);
    // The 24-bit counter starts anywhere, so it may wrap once among these; every other step goes up.
    const descents = ids.filter((id, i) => i > 0 && id < (ids[i - 1] ?? '')).length;
    expect(descents).toBeLessThanOrEqual(1);
    // One process, one middle part: only the counter tells ids of one second apart.
    expect(new Set(ids.map((id) => id.slice(8, 18))).size).toBe(1);
    expect(ids.every((id) => dayOfId(id) === '2024-03-01')).toBe(true);
  });

  it('refuses a time that 8 hex digits of seconds cannot hold', () => {
    expect(() => newTransactionId(new Date(-1000))).toThrow(RangeError);
    expect(() => newTransactionId(new Date(Date.UTC(2106, 1, 8)))).toThrow(RangeError);
    expect(() => newTransactionId(new Date(Number.NaN))).toThrow(RangeError);
  });

  it('maps an id back to its UTC day, and anything else to null', () => {
    expect(dayOfId(newTransactionId(new Date('2024-03-01T23:59:59.999Z')))).toBe('2024-03-01');
    expect(dayOfId(newTransactionId(new Date('2024-03-02T00:00:00Z')))).toBe('2024-03-02');
    for (const id of ['', 'xyz', 'ABCDEF0123456789abcdef01', '0'.repeat(25), 42, null]) expect(dayOfId(id)).toBeNull();
  });

  it('names the right day on either side of midnight, in any order, before 1970 too, and refuses an invalid date', () => {
    const moments = ['2024-03-01T23:59:59.999Z', '2024-03-02T00:00:00.000Z', '2024-03-01T00:00:00.000Z', '2024-02-29T23:59:59.999Z', '1969-12-31T23:59:59.999Z', '1970-01-01T00:00:00.000Z', '2024-03-02T00:00:00.000Z', '2024-03-01T12:00:00.000Z'];
    for (const moment of moments) expect(dayOf(new Date(moment))).toBe(moment.slice(0, 10));
    expect(() => dayOf(new Date(Number.NaN))).toThrow(RangeError);
  });

  it('writes days as yyyy-mm-dd in UTC and knows a real calendar day', () => {
    expect(dayOf(new Date('2024-02-29T23:30:00-01:00'))).toBe('2024-03-01');
    expect(isDay('2024-02-29')).toBe(true);
    for (const value of ['2023-02-29', '2024-02-30', '2024-3-01', 'yesterday', 20240301]) expect(isDay(value)).toBe(false);
  });
});
