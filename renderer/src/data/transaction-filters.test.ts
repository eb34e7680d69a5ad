/** The transaction list's filters: URL <-> filters <-> the API's `filters` object, and the problems shown next to the inputs. */
import { describe, expect, it } from 'vitest';
import {
  activeQuickRange,
  apiFilters,
  dateOrderProblem,
  DEFAULT_SIZE,
  EMPTY_FILTERS,
  fromLocalInput,
  hasFilters,
  paramsFromQuery,
  pathPatternProblem,
  queryFromParams,
  quickRange,
  responseStatusProblem,
  splitProperty,
  toLocalInput,
} from './transaction-filters';
import type { ListFilters, ListQuery } from './transaction-filters';
import { NO_SEARCH, boxValue, keySearchLink, searchFromBox, textAlternative } from './transaction-filters';

const FULL: ListQuery = {
  filters: {
    status: ['Failed', 'Completed with error(s)'],
    channel: '65f0c0ffee00000000000001',
    client: '65f0c0ffee00000000000002',
    method: 'POST',
    response: '5xx',
    path: '^/lab/(results|orders)\\?a=1&b=2$',
    from: '2024-05-01T00:00:00.000Z',
    to: '2024-05-02T23:59:59.999Z',
    properties: ['site=north', 'ticket=INC-1=2'],
    q: '',
    text: '',
    patientId: '1004',
    authority: 'MRN',
    orderNumber: 'ACC-1',
    controlId: 'CTRL-9',
  },
  page: 3,
  size: 50,
};

function filters(overrides: Partial<ListFilters>): ListFilters {
  return { ...EMPTY_FILTERS, ...overrides };
}

describe('filters in the URL', () => {
  it('round-trips every filter, the page and the size through the query string', () => {
    const search = paramsFromQuery(FULL).toString();
    expect(queryFromParams(new URLSearchParams(search))).toEqual(FULL);
  });

  it('keeps the status and property filters repeated, in order', () => {
    const params = paramsFromQuery(FULL);
    expect(params.getAll('status')).toEqual(['Failed', 'Completed with error(s)']);
    expect(params.getAll('prop')).toEqual(['site=north', 'ticket=INC-1=2']);
  });

  it('leaves defaults out, so the plain list has a plain URL', () => {
    expect(paramsFromQuery({ filters: EMPTY_FILTERS, page: 1, size: DEFAULT_SIZE }).toString()).toBe('');
    expect(paramsFromQuery({ filters: EMPTY_FILTERS, page: 2, size: DEFAULT_SIZE }).toString()).toBe('page=2');
    expect(paramsFromQuery({ filters: EMPTY_FILTERS, page: 1, size: 100 }).toString()).toBe('size=100');
  });

  it('reads an empty URL as no filters, page 1 and the default size', () => {
    expect(queryFromParams(new URLSearchParams())).toEqual({ filters: EMPTY_FILTERS, page: 1, size: DEFAULT_SIZE });
  });

  it('ignores unknown statuses, bad dates, property pairs without a usable name, and empty ids', () => {
    const query = queryFromParams(new URLSearchParams('status=Failed&status=Lost&from=yesterday&to=2024-05-02T10:00:00Z&prop=site=north&prop=novalue&prop==x&prop=$where=1&prop=a.b=1&channel=&client=&method='));
    expect(query.filters).toEqual(filters({ status: ['Failed'], to: '2024-05-02T10:00:00Z', properties: ['site=north'] }));
  });

  it('falls back to page 1 and the default size for values a person could not have chosen', () => {
    for (const page of ['0', '-2', '2.5', 'two', '']) expect(queryFromParams(new URLSearchParams({ page })).page, page).toBe(1);
    for (const size of ['10', '1000', 'all', '']) expect(queryFromParams(new URLSearchParams({ size })).size, size).toBe(DEFAULT_SIZE);
    expect(queryFromParams(new URLSearchParams('page=7&size=100'))).toMatchObject({ page: 7, size: 100 });
  });

  it('keeps the response and path text as typed, even when it cannot be used yet (the inputs show why)', () => {
    expect(queryFromParams(new URLSearchParams({ response: '6xx', path: '([' })).filters).toMatchObject({ response: '6xx', path: '([' });
  });
});

describe('splitProperty', () => {
  it('splits at the first = and trims both sides', () => {
    expect(splitProperty(' site = north ')).toEqual(['site', 'north']);
    expect(splitProperty('query=a=b')).toEqual(['query', 'a=b']);
    expect(splitProperty('flag=')).toEqual(['flag', '']);
  });

  it('refuses pairs without a name, without an =, or with a name the API would read as an operator or a path', () => {
    for (const pair of ['', 'site', '=north', ' =north', '$where=1', 'a.b=1']) expect(splitProperty(pair), pair).toBeNull();
  });
});

describe('apiFilters', () => {
  it('sends nothing for no filters', () => {
    expect(apiFilters(EMPTY_FILTERS)).toEqual({});
    expect(hasFilters(EMPTY_FILTERS)).toBe(false);
  });

  it('translates every filter to the API field it names', () => {
    expect(apiFilters(FULL.filters)).toEqual({
      status: ['Failed', 'Completed with error(s)'],
      channelID: '65f0c0ffee00000000000001',
      clientID: '65f0c0ffee00000000000002',
      'request.method': 'POST',
      'response.status': '5xx',
      'request.path': '^/lab/(results|orders)\\?a=1&b=2$',
      'request.timestamp': { $gte: '2024-05-01T00:00:00.000Z', $lte: '2024-05-02T23:59:59.999Z' },
      properties: { site: 'north', ticket: 'INC-1=2' },
      patientId: '1004',
      authority: 'MRN',
      orderNumber: 'ACC-1',
      controlId: 'CTRL-9',
    });
  });

  it('sends one status as a value and several as a list', () => {
    expect(apiFilters(filters({ status: ['Failed'] }))).toEqual({ status: 'Failed' });
    expect(apiFilters(filters({ status: ['Failed', 'Successful'] }))).toEqual({ status: ['Failed', 'Successful'] });
  });

  it('sends an open-ended date range with only the bound that is set', () => {
    expect(apiFilters(filters({ from: '2024-05-01T00:00:00.000Z' }))).toEqual({ 'request.timestamp': { $gte: '2024-05-01T00:00:00.000Z' } });
    expect(apiFilters(filters({ to: '2024-05-01T00:00:00.000Z' }))).toEqual({ 'request.timestamp': { $lte: '2024-05-01T00:00:00.000Z' } });
  });

  it('normalises a response class and leaves out a response or path the inputs mark as unusable', () => {
    expect(apiFilters(filters({ response: ' 4XX ' }))).toEqual({ 'response.status': '4xx' });
    expect(apiFilters(filters({ response: '404' }))).toEqual({ 'response.status': '404' });
    expect(apiFilters(filters({ response: '6xx', path: '(unclosed' }))).toEqual({});
    expect(hasFilters(filters({ path: '(unclosed' }))).toBe(false);
    expect(hasFilters(filters({ path: '^/lab' }))).toBe(true);
  });

  it('sends the last value when one property name is given twice', () => {
    expect(apiFilters(filters({ properties: ['site=north', 'site=south'] }))).toEqual({ properties: { site: 'south' } });
  });
});

describe('the problems shown next to the inputs', () => {
  it('names a path that is not a regular expression', () => {
    expect(pathPatternProblem('')).toBeNull();
    expect(pathPatternProblem('^/lab/[0-9]+$')).toBeNull();
    expect(pathPatternProblem('([')).toBe('This is not a valid regular expression');
  });

  it('accepts a status code or class from 1xx to 5xx and nothing else', () => {
    for (const ok of ['', '200', '404', '5xx', '1XX', ' 503 ']) expect(responseStatusProblem(ok), ok).toBeNull();
    for (const bad of ['600', '0xx', '20', '2000', 'x5x', '4x', 'error']) expect(responseStatusProblem(bad), bad).toBe('Use a status code such as 404 or a class such as 5xx');
  });

  it('refuses a From time after the To time, and accepts equal or open-ended ranges', () => {
    expect(dateOrderProblem(filters({ from: '2024-05-02T00:00:00Z', to: '2024-05-01T00:00:00Z' }))).toBe('Choose a From time before the To time.');
    expect(dateOrderProblem(filters({ from: '2024-05-01T00:00:00Z', to: '2024-05-01T00:00:00Z' }))).toBeNull();
    expect(dateOrderProblem(filters({ from: '2024-05-02T00:00:00Z' }))).toBeNull();
  });
});

describe('datetime-local inputs', () => {
  it('shows an instant as local time to the minute', () => {
    const local = new Date(2024, 4, 1, 9, 5, 42);
    expect(toLocalInput(local.toISOString())).toBe('2024-05-01T09:05');
  });

  it('shows nothing for no instant or a bad one', () => {
    expect(toLocalInput(null)).toBe('');
    expect(toLocalInput('not a date')).toBe('');
  });

  it('reads a local minute as the instant that starts it, or with `end` the last millisecond of it', () => {
    expect(fromLocalInput('2024-05-01T09:05')).toBe(new Date(2024, 4, 1, 9, 5, 0, 0).toISOString());
    expect(fromLocalInput('2024-05-01T09:05', true)).toBe(new Date(2024, 4, 1, 9, 5, 59, 999).toISOString());
  });

  it('round-trips what the input shows', () => {
    const iso = new Date(2024, 11, 31, 23, 59).toISOString();
    expect(fromLocalInput(toLocalInput(iso))).toBe(iso);
  });

  it('reads an empty or unreadable input as no bound', () => {
    expect(fromLocalInput('')).toBeNull();
    expect(fromLocalInput('2024-13-45T99:99')).toBeNull();
  });
});

describe('quick time ranges', () => {
  // A fixed local time; the ranges are read back in local time, whatever zone the tests run in.
  const now = new Date(2026, 2, 10, 14, 30, 12);
  const local = (iso: string | null) => (iso === null ? null : toLocalInput(iso));

  it('sets From and To in the local time zone', () => {
    expect(quickRange('lastHour', now)).toEqual({ from: new Date(now.getTime() - 3_600_000).toISOString(), to: null });
    expect(local(quickRange('today', now).from)).toBe('2026-03-10T00:00');
    expect(quickRange('today', now).to).toBeNull();
    const yesterday = quickRange('yesterday', now);
    expect(local(yesterday.from)).toBe('2026-03-09T00:00');
    expect(local(yesterday.to)).toBe('2026-03-09T23:59');
    expect(new Date(yesterday.to ?? '').getTime()).toBe(new Date(2026, 2, 10).getTime() - 1);
    expect(local(quickRange('last7Days', now).from)).toBe('2026-03-04T00:00');
  });

  it('knows which range the dates are', () => {
    expect(activeQuickRange(quickRange('yesterday', now), now)).toBe('yesterday');
    expect(activeQuickRange(quickRange('today', now), now)).toBe('today');
    expect(activeQuickRange(quickRange('last7Days', now), now)).toBe('last7Days');
    // The last hour moves with the clock: still itself half a minute later, not ten minutes later.
    expect(activeQuickRange(quickRange('lastHour', now), new Date(now.getTime() + 30_000))).toBe('lastHour');
    expect(activeQuickRange(quickRange('lastHour', now), new Date(now.getTime() + 600_000))).toBeNull();
    expect(activeQuickRange({ from: null, to: null }, now)).toBeNull();
    expect(activeQuickRange({ from: '2026-01-01T00:00:00.000Z', to: null }, now)).toBeNull();
  });

  it('goes through the API filters as a timestamp range', () => {
    const yesterday = quickRange('yesterday', now);
    expect(apiFilters({ ...EMPTY_FILTERS, ...yesterday })).toEqual({ 'request.timestamp': { $gte: yesterday.from, $lte: yesterday.to } });
  });
});

describe('the search box (issue 37)', () => {
  it('searches one word as a key first and several words as text, clearing the rest of the search', () => {
    expect(searchFromBox(' 1004 ')).toEqual({ ...NO_SEARCH, q: '1004' });
    expect(searchFromBox('chest pain')).toEqual({ ...NO_SEARCH, text: 'chest pain' });
    expect(searchFromBox('   ')).toEqual(NO_SEARCH);
    expect(boxValue(searchFromBox('ACC-1'))).toBe('ACC-1');
  });

  it('offers a key search again as text, never a text search, and never sends an authority alone', () => {
    expect(textAlternative({ ...NO_SEARCH, q: 'ACC-1' })).toBe('ACC-1');
    expect(textAlternative({ ...NO_SEARCH, patientId: '1004', authority: 'MRN' })).toBe('1004');
    expect(textAlternative({ ...NO_SEARCH, text: 'chest pain' })).toBeNull();
    expect(textAlternative(NO_SEARCH)).toBeNull();
    expect(apiFilters({ ...EMPTY_FILTERS, authority: 'MRN' })).toEqual({});
  });

  it('links a key to the list filtered by it, its authority only with a patient ID', () => {
    expect(keySearchLink('patientId', '1004', 'MRN')).toBe('/transactions?patientId=1004&authority=MRN');
    expect(keySearchLink('orderNumber', 'ACC 1/2')).toBe('/transactions?orderNumber=ACC+1%2F2');
    expect(queryFromParams(new URLSearchParams('patientId=1004&authority=MRN')).filters).toEqual({ ...EMPTY_FILTERS, patientId: '1004', authority: 'MRN' });
  });
});
