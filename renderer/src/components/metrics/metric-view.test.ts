/** The metrics charts' periods, buckets and the filling of empty buckets. Local time is the test process's zone. */
import { describe, expect, it } from 'vitest';
import type { MetricItem } from '../../../../service/contracts/metrics';
import { bucketStart, bucketStarts, channelStatusRows, fillSeries, nextBucket, periodOption, periodRange, statusTotals } from './metric-view';

function item(timestamp: string | undefined, total: number, avgResp: number, extra: Partial<MetricItem> = {}): MetricItem {
  return {
    total,
    avgResp,
    minResp: avgResp,
    maxResp: avgResp,
    failed: 0,
    successful: total,
    processing: 0,
    completed: 0,
    completedWErrors: 0,
    ...(timestamp === undefined ? {} : { timestamp }),
    _id: {},
    ...extra,
  };
}

const NOW = new Date(2026, 4, 14, 10, 37, 12); // Thursday 14 May 2026, 10:37:12 local

describe('periods', () => {
  it('asks OpenHIM’s bucket sizes, with real months for a year', () => {
    expect(['1h', '1d', '1w', '1m', '1y'].map((p) => periodOption(p as '1h').series)).toEqual(['minute', 'hour', 'day', 'day', 'month']);
  });

  it('covers whole buckets ending with the current one', () => {
    const hour = periodRange('1h', NOW);
    expect(hour.start).toEqual(new Date(2026, 4, 14, 9, 38));
    expect(hour.end).toEqual(NOW);
    expect(bucketStarts(hour.start, hour.end, 'minute')).toHaveLength(60);
    const day = periodRange('1d', NOW);
    expect(bucketStarts(day.start, day.end, 'hour')).toHaveLength(24);
    const week = periodRange('1w', NOW);
    expect(week.start).toEqual(new Date(2026, 4, 8));
    expect(bucketStarts(week.start, week.end, 'day')).toHaveLength(7);
    const month = periodRange('1m', NOW);
    expect(month.start).toEqual(new Date(2026, 3, 15));
    expect(bucketStarts(month.start, month.end, 'day')).toHaveLength(30);
    const year = periodRange('1y', NOW);
    expect(year.start).toEqual(new Date(2025, 5, 1));
    expect(bucketStarts(year.start, year.end, 'month')).toHaveLength(12);
  });

  it('starts weeks on Monday and steps months by the calendar', () => {
    expect(bucketStart(NOW, 'week')).toEqual(new Date(2026, 4, 11));
    expect(nextBucket(new Date(2026, 0, 1), 'month')).toEqual(new Date(2026, 1, 1));
    expect(nextBucket(new Date(2026, 11, 1), 'month')).toEqual(new Date(2027, 0, 1));
    expect(nextBucket(new Date(2026, 2, 28), 'day')).toEqual(new Date(2026, 2, 29));
  });
});

describe('fillSeries', () => {
  it('has a zero point for every bucket without data', () => {
    const { start, end } = periodRange('1h', NOW);
    const points = fillSeries([item(new Date(2026, 4, 14, 10, 5).toISOString(), 3, 12)], start, end, 'minute');
    expect(points).toHaveLength(60);
    expect(points.filter((p) => p.total > 0).map((p) => [new Date(p.at), p.total, p.avgResp])).toEqual([[new Date(2026, 4, 14, 10, 5), 3, 12]]);
    expect(points.reduce((n, p) => n + p.total, 0)).toBe(3);
    expect(points[0]?.avgResp).toBe(0);
  });

  it('adds items that fall in one bucket, weighting the mean response time by requests', () => {
    const { start, end } = periodRange('1d', NOW);
    const points = fillSeries(
      [item(new Date(2026, 4, 14, 9, 0).toISOString(), 1, 100, { failed: 1, successful: 0 }), item(new Date(2026, 4, 14, 9, 30).toISOString(), 3, 20)],
      start,
      end,
      'hour',
    );
    const nine = points.find((p) => p.at === new Date(2026, 4, 14, 9).getTime());
    expect(nine).toMatchObject({ total: 4, avgResp: 40, failed: 1, successful: 3 });
  });

  it('leaves out items before the period or without a timestamp', () => {
    const { start, end } = periodRange('1h', NOW);
    const points = fillSeries([item(new Date(2026, 4, 13).toISOString(), 5, 1), item(undefined, 7, 1)], start, end, 'minute');
    expect(points.reduce((n, p) => n + p.total, 0)).toBe(0);
  });
});

describe('channel status', () => {
  it('names channels from the list, sorted by name, and keeps unknown ones by id', () => {
    const rows = channelStatusRows(
      [item(undefined, 2, 5, { _id: { channelID: 'b' }, failed: 1, successful: 1 }), item(undefined, 1, 5, { _id: { channelID: 'zz' } }), item(undefined, 9, 5, { _id: { channelID: null } })],
      new Map([['b', 'Alpha']]),
    );
    expect(rows.map((r) => [r.name, r.total, r.failed, r.successful])).toEqual([
      ['Alpha', 2, 1, 1],
      ['zz', 1, 0, 1],
    ]);
  });

  it('totals the status counts', () => {
    expect(statusTotals([item(undefined, 2, 5, { failed: 1, successful: 1 }), item(undefined, 1, 5)])).toEqual({
      total: 3,
      successful: 2,
      completed: 0,
      completedWErrors: 0,
      failed: 1,
      processing: 0,
    });
  });
});
