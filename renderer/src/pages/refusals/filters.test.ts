import { describe, expect, it } from 'vitest';
import { addressProblem, paramsFromRefusalQuery, refusalApiQuery, refusalDateProblem, refusalQueryFromParams } from './filters';

describe('the Refused list filters', () => {
  it('reads the URL and writes it back, and asks the API for the page shown', () => {
    const params = new URLSearchParams('channel=aaaaaaaaaaaaaaaaaaaaaaa1&reason=not_allowed&address=10.0.0.5&from=2026-12-03T07:00:00.000Z&page=2&size=20');
    const query = refusalQueryFromParams(params);
    expect(query).toMatchObject({ page: 2, size: 20, filters: { channel: 'aaaaaaaaaaaaaaaaaaaaaaa1', reason: 'not_allowed', address: '10.0.0.5' } });
    expect(paramsFromRefusalQuery(query).toString()).toBe(new URLSearchParams('from=2026-12-03T07:00:00.000Z&channel=aaaaaaaaaaaaaaaaaaaaaaa1&reason=not_allowed&address=10.0.0.5&page=2&size=20').toString());
    expect(refusalApiQuery(query)).toEqual({ from: '2026-12-03T07:00:00.000Z', channelID: 'aaaaaaaaaaaaaaaaaaaaaaa1', reason: 'not_allowed', address: '10.0.0.5', filterLimit: 20, filterPage: 1 });
  });

  it('falls back to the first page of 50 for nonsense, and names bad dates and addresses', () => {
    expect(refusalQueryFromParams(new URLSearchParams('page=-3&size=7'))).toMatchObject({ page: 1, size: 50 });
    expect(refusalDateProblem({ from: '2026-12-03T08:00:00Z', to: '2026-12-03T07:00:00Z', channel: null, reason: null, address: '' })).not.toBeNull();
    expect(addressProblem('10.0.0.5')).toBeNull();
    expect(addressProblem('<script>')).not.toBeNull();
  });
});
