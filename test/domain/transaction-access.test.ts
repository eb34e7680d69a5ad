import { describe, expect, it } from 'vitest';
import { parseFilters, parseTransactionQuery, restrictToChannels, transactionAccess, viewableChannels } from '../../service/domain/transactions/transaction-access.js';

const admin = { groups: ['admin'] };
const nurse = { groups: ['nurses'] };
const channel = (_id: string, txViewAcl: string[], txViewFullAcl: string[] = []) => ({ _id, txViewAcl, txViewFullAcl, txRerunAcl: ['nurses'] });

function problems(filters: unknown): { path: string; message: string }[] {
  const result = parseTransactionQuery({ filters: typeof filters === 'string' ? filters : JSON.stringify(filters) });
  if (result.ok) throw new Error('expected problems');
  return result.problems;
}

describe('transaction access', () => {
  it('lets admins see everything, txViewAcl metadata only, txViewFullAcl bodies too, and nothing through txRerunAcl alone', () => {
    expect(transactionAccess(admin, channel('a', []))).toEqual({ view: true, bodies: true });
    expect(transactionAccess(nurse, channel('a', ['nurses']))).toEqual({ view: true, bodies: false });
    expect(transactionAccess(nurse, channel('a', [], ['nurses']))).toEqual({ view: true, bodies: true });
    expect(transactionAccess(nurse, channel('a', ['nurses'], ['nurses']))).toEqual({ view: true, bodies: true });
    expect(transactionAccess(nurse, channel('a', ['lab'], ['lab']))).toEqual({ view: false, bodies: false });
  });

  it('lists the viewable channels of a user and narrows filters to them', () => {
    expect(viewableChannels(admin, [channel('a', [])])).toBe('all');
    const visible = viewableChannels(nurse, [channel('a', ['nurses']), channel('b', [], ['nurses']), channel('c', ['lab'])]);
    expect(visible).toEqual(
      new Map([
        ['a', { view: true, bodies: false }],
        ['b', { view: true, bodies: true }],
      ]),
    );
    expect(restrictToChannels({ status: ['Failed'] }, ['a', 'b'])).toEqual({ status: ['Failed'], channelID: ['a', 'b'] });
    expect(restrictToChannels({ channelID: ['b', 'c'] }, ['a', 'b'])).toEqual({ channelID: ['b'] });
    expect(restrictToChannels({ channelID: ['c'] }, ['a'])).toEqual({ channelID: [] });
  });
});

describe('transaction query translation', () => {
  it('defaults to the first page of 20 and computes skips', () => {
    expect(parseTransactionQuery({})).toEqual({ ok: true, value: { filter: {}, limit: 20, skip: 0 } });
    expect(parseTransactionQuery({ filterLimit: '5', filterPage: 3 })).toEqual({ ok: true, value: { filter: {}, limit: 5, skip: 15 } });
  });

  it('refuses limits outside 0–100,000 (0: no limit) and negative pages', () => {
    for (const filterLimit of [-1, 100_001, '2.5', 'ten']) {
      const result = parseTransactionQuery({ filterLimit });
      expect(result.ok ? [] : result.problems.map((p) => p.path)).toEqual(['querystring.filterLimit']);
    }
    const result = parseTransactionQuery({ filterPage: -1 });
    expect(result.ok ? [] : result.problems.map((p) => p.path)).toEqual(['querystring.filterPage']);
  });

  it('translates every OpenHIM filter key', () => {
    const result = parseFilters(
      JSON.stringify({
        status: 'Failed',
        'response.status': '5xx',
        channelID: 'abc123',
        clientID: 'client1',
        'request.method': 'post',
        'request.path': '^/fhir',
        'request.timestamp': JSON.stringify({ $gte: '2024-05-01T00:00:00Z', $lte: '2024-05-31T23:59:59.999Z' }),
        properties: { site: 'north' },
        wasRerun: false,
      }),
    );
    expect(result).toEqual({
      ok: true,
      filter: {
        status: ['Failed'],
        statusCode: '5xx',
        channelID: ['abc123'],
        clientID: 'client1',
        method: 'POST',
        // Case-insensitive, as OpenHIM's new RegExp(value, 'i').
        path: '(?i)^/fhir',
        from: new Date('2024-05-01T00:00:00Z'),
        to: new Date('2024-05-31T23:59:59.999Z'),
        properties: { site: 'north' },
        wasRerun: false,
      },
    });
    expect(parseFilters('{"status":["Failed","Successful"],"response.status":404,"request.timestamp":{"$gte":"2024-05-01"}}')).toEqual({
      ok: true,
      filter: { status: ['Failed', 'Successful'], statusCode: '404', from: new Date('2024-05-01T00:00:00Z') },
    });
    expect(parseFilters(undefined)).toEqual({ ok: true, filter: {} });
  });

  it('refuses request.path patterns that cannot run in linear time, saying why', () => {
    expect(problems({ 'request.path': '^/(a)\\1$' })).toEqual([
      { path: 'querystring.filters.request.path', message: 'backreferences such as \\1 are not supported; Junction matches patterns in linear time' },
    ]);
    expect(problems({ 'request.path': '(?<=/fhir)/Patient' })).toEqual([
      { path: 'querystring.filters.request.path', message: 'lookbehind (?<=...) is not supported; Junction matches patterns in linear time' },
    ]);
    // Backtracks exponentially in RegExp, but RE2 runs it in linear time, so it is accepted.
    expect(parseFilters(JSON.stringify({ 'request.path': '^/ok/(a+)+$' })).ok).toBe(true);
  });

  it('names the filter key of every problem', () => {
    expect(problems('{not json')).toEqual([{ path: 'querystring.filters', message: 'must be a JSON object' }]);
    expect(problems([1])[0]?.path).toBe('querystring.filters');
    expect(problems({ colour: 'red' })[0]?.path).toBe('querystring.filters.colour');
    expect(problems({ status: 'Done' })[0]?.path).toBe('querystring.filters.status');
    expect(problems({ 'response.status': '6xx' })[0]?.path).toBe('querystring.filters.response.status');
    expect(problems({ 'response.status': '5x' })[0]?.path).toBe('querystring.filters.response.status');
    expect(problems({ 'request.path': '(' })[0]?.path).toBe('querystring.filters.request.path');
    expect(problems({ 'request.method': 'GET /' })[0]?.path).toBe('querystring.filters.request.method');
    expect(problems({ 'request.timestamp': '{"$gte":"yesterday"}' })[0]?.path).toBe('querystring.filters.request.timestamp.$gte');
    expect(problems({ 'request.timestamp': { $lte: '2024-13-45' } })[0]?.path).toBe('querystring.filters.request.timestamp.$lte');
    expect(problems({ 'request.timestamp': { $gt: '2024-01-01' } })[0]?.path).toBe('querystring.filters.request.timestamp');
    expect(problems({ 'request.timestamp': { $gte: '2024-02-01', $lte: '2024-01-01' } })[0]).toEqual({ path: 'querystring.filters.request.timestamp', message: 'has $gte after $lte' });
    expect(problems({ 'request.timestamp': 'not json' })[0]?.path).toBe('querystring.filters.request.timestamp');
    expect(problems({ properties: { 'a.b': 'x' } })[0]?.path).toBe('querystring.filters.properties');
    expect(problems({ properties: { site: 1 } })[0]?.path).toBe('querystring.filters.properties.site');
    expect(problems({ channelID: [] })[0]?.path).toBe('querystring.filters.channelID');
    expect(problems({ clientID: 5 })[0]?.path).toBe('querystring.filters.clientID');
    expect(problems({ wasRerun: 'yes' })[0]?.path).toBe('querystring.filters.wasRerun');
    expect(problems({ status: 'Done', colour: 'red' }).map((p) => p.path)).toEqual(['querystring.filters.status', 'querystring.filters.colour']);
  });
});
