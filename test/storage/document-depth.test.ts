/** The stores' own bound on nesting: the API refuses deep values first, but a value from elsewhere must not overflow the stack. */
import { describe, expect, it } from 'vitest';
import { MAX_DOCUMENT_DEPTH, toStorable } from '../../service/storage/documents.js';
import { decodeDocument, encodeDocument } from '../../service/storage/sqlite/documents.js';
import { StoreError } from '../../service/storage/store.js';

function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

describe('document depth', () => {
  it('toStorable refuses a document nested 10,000 levels deep with a StoreError, not a stack overflow', () => {
    expect(() => toStorable('users', { settings: nested(10_000) }, '')).toThrow(StoreError);
    expect(() => toStorable('users', { settings: nested(10_000) }, '')).toThrow(/more than 64 levels deep/);
  });

  it('toStorable keeps documents up to the bound', () => {
    const deepest = nested(MAX_DOCUMENT_DEPTH - 1);
    expect(toStorable('users', deepest, '')).toEqual(deepest);
    expect(() => toStorable('users', nested(MAX_DOCUMENT_DEPTH), '')).toThrow(StoreError);
  });

  it('the SQLite document codec refuses deep documents both ways with a StoreError', () => {
    expect(() => encodeDocument(nested(10_000))).toThrow(StoreError);
    expect(() => decodeDocument(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`)).toThrow(StoreError);
    const doc = { at: new Date(5), deep: nested(20) };
    expect(decodeDocument(encodeDocument(doc))).toEqual(doc);
  });
});
