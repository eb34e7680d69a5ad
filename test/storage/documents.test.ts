/** Documents on their way into any engine: the copy, and the field each refusal names. */
import { describe, expect, it } from 'vitest';
import { toStorable } from '../../service/storage/documents.js';

class Point {
  x = 1;
}

describe('storable documents', () => {
  it('copies deeply, drops undefined fields and keeps Dates as new Dates', () => {
    const at = new Date('2026-11-27T03:00:00Z');
    const value = { a: [{ b: 1, gone: undefined }, 'x', null], at, nested: { flag: true } };
    const copy = toStorable('t', value, '') as typeof value;
    expect(copy).toEqual({ a: [{ b: 1 }, 'x', null], at, nested: { flag: true } });
    expect(copy.a[0]).not.toBe(value.a[0]);
    expect(copy.at).not.toBe(at);
    expect(Object.hasOwn(copy.a[0] as object, 'gone')).toBe(false);
  });

  it('names the field of each refusal by its full path, from the path it was given', () => {
    const cases: [unknown, string, string][] = [
      [{ a: [{ ok: 1 }, { $bad: 1 }] }, '', 't: field name "a[1].$bad" starts with $'],
      [{ a: { 'b.c': 1 } }, '', 't: field name "a.b.c" contains a dot'],
      [{ list: [1, undefined] }, 'set', 't: field "set.list[1]" holds undefined, which cannot be stored'],
      [[Number.NaN], '', 't: field "[0]" holds NaN, which cannot be stored'],
      [{ when: new Date(Number.NaN) }, 'routes[2]', 't: field "routes[2].when" holds an invalid Date, which cannot be stored'],
      [{ p: new Point() }, '', 't: field "p" holds a Point object, which cannot be stored'],
      [() => 1, '', 't: the document holds a function, which cannot be stored'],
      [{ deep: [[{}]] }, 'x', 't: field "x.deep[0]" nests objects and arrays more than 64 levels deep'],
    ];
    for (const [value, path, message] of cases) {
      // The depth case starts near the limit, so its third level is refused.
      const depth = message.includes('levels deep') ? 62 : 0;
      expect(() => toStorable('t', value, path, depth)).toThrow(message);
    }
  });
});
