/** The live transaction list: when it follows the feed, and what a pushed start or completion does to the page. */
import { describe, expect, it } from 'vitest';
import type { LiveTransaction } from '../../../service/contracts/live-feed';
import type { TransactionView } from '../../../service/contracts/transactions';
import { EMPTY_FILTERS } from './transaction-filters';
import type { ListQuery } from './transaction-filters';
import { liveHold, mergeLoaded, rowFromEvent, withCompleted, withStarted } from './live-list';

const NOW = new Date('2026-05-01T10:00:05.000Z');
const SECOND = (Date.parse('2026-05-01T10:00:00Z') / 1000).toString(16);
const id = (second: number, n: number) => `${(parseInt(SECOND, 16) + second).toString(16)}${String(n).padStart(16, '0')}`;

const PLAIN: ListQuery = { filters: EMPTY_FILTERS, page: 1, size: 20 };

function event(transactionId: string, status: LiveTransaction['status'] = 'Processing', responseStatus?: number): LiveTransaction {
  return { transactionId, channelID: 'c1', status, method: 'GET', path: '/lab/x', ...(responseStatus === undefined ? {} : { responseStatus }) };
}

function row(transactionId: string, extra: Partial<TransactionView> = {}): TransactionView {
  return { ...rowFromEvent(event(transactionId, 'Successful', 200), NOW), clientID: 'k1', ...extra };
}

describe('liveHold', () => {
  it('follows the feed on the plain first page only', () => {
    expect(liveHold(PLAIN, 0, false)).toBeNull();
    expect(liveHold(PLAIN, 0, true)).toBe('paused');
    expect(liveHold(PLAIN, 2, false)).toBe('selection');
    expect(liveHold({ ...PLAIN, page: 2 }, 0, false)).toBe('page');
    expect(liveHold({ ...PLAIN, filters: { ...EMPTY_FILTERS, status: ['Failed'] } }, 0, false)).toBe('filtered');
    expect(liveHold({ ...PLAIN, filters: { ...EMPTY_FILTERS, path: '^/lab' } }, 0, false)).toBe('filtered');
  });

  it('keeps following when the page size changes', () => {
    expect(liveHold({ ...PLAIN, size: 100 }, 0, false)).toBeNull();
  });
});

describe('rowFromEvent', () => {
  it('takes the time from the id and the response code when there is one', () => {
    const made = rowFromEvent(event(id(3, 1), 'Failed', 500), NOW);
    expect(made.request).toEqual({ method: 'GET', path: '/lab/x', querystring: '', timestamp: '2026-05-01T10:00:03.000Z' });
    expect(made.status).toBe('Failed');
    expect(made.response?.status).toBe(500);
    expect(rowFromEvent(event(id(3, 1)), NOW).response).toBeUndefined();
  });
});

describe('withStarted', () => {
  it('puts the new transaction on top and keeps the page size', () => {
    const rows = [row(id(2, 2)), row(id(1, 1))];
    const next = withStarted(rows, event(id(4, 3)), 2, NOW);
    expect(next?.map((r) => r._id)).toEqual([id(4, 3), id(2, 2)]);
  });

  it('ignores a transaction already on the page', () => {
    expect(withStarted([row(id(2, 2))], event(id(2, 2)), 20, NOW)).toBeNull();
  });
});

describe('withCompleted', () => {
  it('changes the status and response code in place, keeping the rest of the row', () => {
    const rows = [row(id(2, 2), { status: 'Processing', response: undefined }), row(id(1, 1))];
    const next = withCompleted(rows, event(id(2, 2), 'Failed', 502), 20, NOW);
    expect(next?.[0]?.status).toBe('Failed');
    expect(next?.[0]?.response?.status).toBe(502);
    expect(next?.[0]?.clientID).toBe('k1');
    expect(next?.[1]).toBe(rows[1]);
  });

  it('adds a completion whose start was missed only when it is not older than the page', () => {
    const rows = [row(id(2, 2)), row(id(1, 1))];
    expect(withCompleted(rows, event(id(1, 9), 'Successful'), 20, NOW)).toBeNull();
    expect(withCompleted(rows, event(id(3, 9), 'Successful'), 20, NOW)?.[0]?._id).toBe(id(3, 9));
    expect(withCompleted([], event(id(3, 9), 'Successful'), 20, NOW)?.map((r) => r._id)).toEqual([id(3, 9)]);
  });
});

describe('mergeLoaded', () => {
  it('keeps rows pushed while the page was read, and replaces the rest with the server’s', () => {
    const loaded = [row(id(2, 2), { clientID: 'server' }), row(id(1, 1))];
    const current = [row(id(5, 5)), row(id(2, 2)), row(id(0, 0))];
    const merged = mergeLoaded(loaded, current, 20);
    expect(merged.map((r) => r._id)).toEqual([id(5, 5), id(2, 2), id(1, 1)]);
    expect(merged[1]?.clientID).toBe('server');
    expect(mergeLoaded(loaded, current, 2).map((r) => r._id)).toEqual([id(5, 5), id(2, 2)]);
  });
});
