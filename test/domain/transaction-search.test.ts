import { describe, expect, it } from 'vitest';
import { matchedKeys, searchesIndex, textSearchChannels, translateSearch } from '../../service/domain/transactions/transaction-search.js';
import { parseTransactionQuery, translateFilters } from '../../service/domain/transactions/transaction-access.js';

describe('the clinical search parameters (issue 37)', () => {
  it('turns each parameter into its key condition, q into any, and authority onto patientId', () => {
    const result = translateSearch({ patientId: ' 1004 ', authority: 'MRN', orderNumber: 'ACC-1', controlId: 'C9', messageType: 'ADT^A01', q: 'X1', text: 'chest pain' }, 'querystring');
    expect(result).toEqual({
      ok: true,
      keys: [
        { name: 'patientId', value: '1004', authority: 'MRN' },
        { name: 'orderNumber', value: 'ACC-1' },
        { name: 'controlId', value: 'C9' },
        { name: 'messageType', value: 'ADT^A01' },
        { name: 'any', value: 'X1' },
      ],
      text: 'chest pain',
    });
  });

  it('names each bad value: empty, too long, not text, an authority alone, text without words or with too many', () => {
    const result = translateSearch({ patientId: '  ', orderNumber: 'x'.repeat(201), controlId: 7, text: '-- !!' }, 'querystring');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => p.path)).toEqual(['querystring.patientId', 'querystring.orderNumber', 'querystring.controlId', 'querystring.text']);
    const alone = translateSearch({ authority: 'MRN' }, 'querystring');
    expect(alone).toEqual({ ok: false, problems: [{ path: 'querystring.authority', message: 'narrows patientId: give patientId with it' }] });
    const many = translateSearch({ text: Array.from({ length: 17 }, (_, i) => `w${i}`).join(' ') }, 'at');
    expect(many.ok).toBe(false);
  });

  it('is read from the filters object (the bulk re-run) and the query alike, and combines with the other filters', () => {
    const body = translateFilters({ status: 'Failed', patientId: '1004', text: 'glucose' }, 'body.filters');
    expect(body).toEqual({ ok: true, filter: { status: ['Failed'], keys: [{ name: 'patientId', value: '1004' }], text: 'glucose' } });
    const query = parseTransactionQuery({ filters: JSON.stringify({ orderNumber: 'A' }), controlId: 'C', filterLimit: '5' });
    expect(query).toMatchObject({ ok: true, value: { limit: 5, filter: { keys: [{ name: 'orderNumber', value: 'A' }, { name: 'controlId', value: 'C' }] } } });
    const twice = parseTransactionQuery({ filters: JSON.stringify({ text: 'a' }), text: 'b' });
    expect(twice).toMatchObject({ ok: false, problems: [{ path: 'querystring.text' }] });
    const unknown = translateFilters({ patient: '1' }, 'body.filters');
    expect(unknown.ok).toBe(false);
  });

  it('searches the index only with a key or text, and text only in channels whose bodies may be read', () => {
    expect(searchesIndex({})).toBe(false);
    expect(searchesIndex({ keys: [] })).toBe(false);
    expect(searchesIndex({ text: 'a' })).toBe(true);
    const scope = new Map([
      ['a', { view: true, bodies: true }],
      ['b', { view: true, bodies: false }],
    ]);
    expect(textSearchChannels(scope)).toEqual(['a']);
    expect(textSearchChannels(new Map([['b', { view: true, bodies: false }]]))).toEqual([]);
  });

  it('shows the stored keys that met a condition, any case and authority, once each', () => {
    const stored = [
      { name: 'patientId' as const, value: '1004', authority: 'MRN', field: 'PID-3', part: 'request' as const },
      { name: 'patientId' as const, value: '1004', authority: 'NHS', field: 'PID-3', part: 'request' as const },
      { name: 'patientId' as const, value: '1004', authority: 'MRN', field: 'PID-3', part: 'response' as const },
      { name: 'orderNumber' as const, value: 'acc-1', field: 'ORC-2', part: 'request' as const },
      { name: 'account' as const, value: '1004', field: 'PID-18', part: 'request' as const },
    ];
    expect(matchedKeys(stored, [{ name: 'patientId', value: '1004', authority: 'mrn' }])).toEqual([{ name: 'patientId', field: 'PID-3', value: '1004', authority: 'MRN' }]);
    expect(matchedKeys(stored, [{ name: 'any', value: 'ACC-1' }])).toEqual([{ name: 'orderNumber', field: 'ORC-2', value: 'acc-1' }]);
    expect(matchedKeys(stored, [{ name: 'any', value: '1004' }])).toHaveLength(2);
  });
});
