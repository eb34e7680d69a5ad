import { describe, expect, it } from 'vitest';
import { DEFAULT_FREE_FORM_LIMITS, freeFormKeyProblem, freeFormProblem } from '../../service/domain/util/free-form.js';

function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

describe('freeFormProblem', () => {
  it('accepts ordinary settings', () => {
    expect(freeFormProblem({ list: { tabview: 'grid', columns: ['a', 'b'] }, filter: { limit: 100, status: null, on: true } })).toBeNull();
  });

  it('accepts the deepest nesting allowed and refuses one level more, naming where', () => {
    const limits = { ...DEFAULT_FREE_FORM_LIMITS, maxDepth: 3 };
    expect(freeFormProblem(nested(3), limits)).toBeNull();
    expect(freeFormProblem(nested(4), limits)).toEqual({ at: ['a', 'a', 'a'], message: expect.stringContaining('at most 3 levels') as string });
  });

  it('refuses 10,000 levels without overflowing the stack', () => {
    const deep = JSON.parse(`${'['.repeat(10_000)}${']'.repeat(10_000)}`) as unknown;
    expect(freeFormProblem(deep)?.message).toMatch(/nested too deeply/);
    expect(freeFormProblem(nested(10_000))?.message).toMatch(/nested too deeply/);
  });

  it('refuses keys a store cannot hold, at any level', () => {
    expect(freeFormProblem({ $where: 1 })).toEqual({ at: ['$where'], message: expect.stringMatching(/^is not a usable map key/) as string });
    expect(freeFormProblem({ ok: { 'a.b': 1 } })).toEqual({ at: ['ok', 'a.b'], message: expect.stringMatching(/^is not a usable map key/) as string });
    expect(freeFormProblem({ ok: [{ '': 1 }] })).toEqual({ at: ['ok', '0'], message: expect.stringMatching(/^has an empty key/) as string });
    expect(freeFormProblem({ ['k'.repeat(101)]: 1 })?.message).toMatch(/1 to 100 characters/);
  });

  it('lets dotted keys and operators through when the value is never stored', () => {
    expect(freeFormProblem({ 'request.path': { $gte: 1 } }, { ...DEFAULT_FREE_FORM_LIMITS, storableKeys: false })).toBeNull();
  });

  it('refuses non-finite numbers wherever they are', () => {
    expect(freeFormProblem({ uptime: Infinity })).toEqual({ at: ['uptime'], message: 'must be a finite number' });
    expect(freeFormProblem([1, [Number.NaN]])?.at).toEqual(['1', '0']);
    expect(freeFormProblem(-Infinity)?.at).toEqual([]);
  });

  it('bounds the total size and the length of strings', () => {
    const limits = { ...DEFAULT_FREE_FORM_LIMITS, maxValues: 10, maxStringLength: 5 };
    expect(freeFormProblem(Array.from({ length: 9 }, (_, i) => i), limits)).toBeNull();
    expect(freeFormProblem(Array.from({ length: 10 }, (_, i) => i), limits)?.message).toMatch(/at most 10 values/);
    expect(freeFormProblem({ a: [1, 2, 3], b: { c: [4, 5, 6, 7] } }, limits)?.message).toMatch(/at most 10 values/);
    expect(freeFormProblem({ s: '12345' }, limits)).toBeNull();
    expect(freeFormProblem({ s: '123456' }, limits)).toEqual({ at: ['s'], message: 'must be at most 5 characters long' });
  });
});

describe('freeFormKeyProblem', () => {
  it('names the reserved prototype key', () => {
    expect(freeFormKeyProblem('__proto__')).toMatch(/reserved/);
    expect(freeFormKeyProblem('constructor')).toBeNull();
  });
});
