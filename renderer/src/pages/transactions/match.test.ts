import { describe, expect, it } from 'vitest';
import { detailPath, matchWords } from './match';

describe('a row found by a key', () => {
  it('names the key, its authority and where it was read', () => {
    expect(matchWords({ name: 'patientId', field: 'PID-3', value: '1004', authority: 'MRN' })).toBe('Patient ID 1004 (MRN) · PID-3');
    expect(matchWords({ name: 'orderNumber', field: 'ORC-2', value: 'ACC-1' })).toBe('Order number ACC-1 · ORC-2');
  });

  it('links to the transaction with the first matching key to highlight, or plainly without one', () => {
    expect(detailPath({ _id: 'abc', match: [{ name: 'patientId', field: 'PID-3', value: '10 04' }] })).toBe('/transactions/abc?field=PID-3&value=10+04');
    expect(detailPath({ _id: 'abc' })).toBe('/transactions/abc');
  });

  it("links a row found by a text search with the search's words to mark, beside any key", () => {
    expect(detailPath({ _id: 'abc' }, ' hemoglobin low ')).toBe('/transactions/abc?words=hemoglobin+low');
    expect(detailPath({ _id: 'abc', match: [{ name: 'controlId', field: 'MSH-10', value: 'C1' }] }, 'amended')).toBe('/transactions/abc?field=MSH-10&value=C1&words=amended');
    expect(detailPath({ _id: 'abc' }, '  ')).toBe('/transactions/abc');
  });
});
