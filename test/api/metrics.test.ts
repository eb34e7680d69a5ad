/**
 * The metrics routes against a known set of transactions, stored with chosen request and response times in a
 * Junction whose `timeZone` is Europe/London: every period (minute to year), week, month and year boundaries, the
 * day clocks go forward (31 March 2024, a 23-hour day), per-channel totals, the five status counts and the response
 * times, what a non-admin may see, and the 400s, 403s and 404s.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import { finishedTransaction } from '../helpers/transactions.js';
import type { MetricItem } from '../../service/contracts/metrics.js';
import type { TransactionStatus } from '../../service/domain/transactions/transaction-status.js';

type Item = MetricItem;

const ZONE = 'Europe/London';

describe('metrics API', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let nurse: { authorization: string };
  const channels: Record<string, string> = {};
  /** Minute test: the start of a recent minute (minute buckets are kept only for minuteRetentionHours). */
  let recentMinute = 0;

  const get = (path: string, headers: Record<string, string> = admin): Promise<TestResponse> => t.inject(path, { headers });
  async function items(path: string, query: Record<string, string>, headers = admin): Promise<Item[]> {
    const res = await get(`${path}?${new URLSearchParams(query).toString()}`, headers);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body as Item[];
  }
  const london = (startDate: string, endDate: string) => ({ startDate, endDate, timeZone: ZONE });

  async function store(channel: string, at: string, status: TransactionStatus, code: number, ms: number): Promise<void> {
    await t.junction.transactions.insert(finishedTransaction({ channelID: channels[channel] ?? '', at, status, code, responseMs: ms, method: 'GET' }));
  }

  beforeAll(async () => {
    t = await startJunction({ timeZone: ZONE });
    admin = { authorization: await unlockRoot(t) };
    const password = 'user-password-123';
    const created = await t.inject('/users', { method: 'POST', headers: admin, json: { email: 'nina@clinic.example', firstname: 'N', surname: 'N', groups: ['nurses'], password } });
    if (created.status !== 201) throw new Error(created.text);
    nurse = { authorization: basic('nina@clinic.example', password) };
    for (const [name, acl] of [['ward', ['nurses']], ['lab', ['lab']]] as const) {
      const res = await t.inject('/channels', { method: 'POST', headers: admin, json: { name, urlPattern: `^/${name}$`, authType: 'public', txViewAcl: acl, routes: [{ name: 'r', host: '127.0.0.1', port: 9, primary: true }] } });
      if (res.status !== 201) throw new Error(res.text);
      channels[name] = (res.body as { _id: string })._id;
    }
    // Year, month and week boundaries: Sunday 31 December 2023 and Monday 1 January 2024 (GMT, London = UTC).
    await store('ward', '2023-12-31T23:30:00Z', 'Successful', 200, 100);
    await store('ward', '2024-01-01T00:15:00Z', 'Failed', 500, 300);
    await store('lab', '2024-01-01T00:45:00Z', 'Completed', 200, 50);
    // Sunday 31 March 2024: clocks go forward at 01:00 UTC. 00:30 GMT, then 02:30 BST.
    await store('ward', '2024-03-31T00:30:00Z', 'Completed with error(s)', 207, 20);
    await store('ward', '2024-03-31T01:30:00Z', 'Successful', 200, 40);
    // 00:30 BST on Monday 1 April (a new week and month in London) is still 31 March in UTC.
    await store('ward', '2024-03-31T23:30:00Z', 'Successful', 201, 60);
    await store('lab', '2024-04-01T08:00:00Z', 'Failed', 503, 1000);
    // Two recent minutes, for the minute series.
    recentMinute = Math.floor(Date.now() / 60_000) * 60_000 - 30 * 60_000;
    await store('ward', new Date(recentMinute + 10_000).toISOString(), 'Successful', 200, 5);
    await store('lab', new Date(recentMinute + 20_000).toISOString(), 'Successful', 200, 15);
    await store('ward', new Date(recentMinute + 70_000).toISOString(), 'Failed', 500, 25);
  });

  afterAll(async () => {
    await t.destroy();
  });

  const ALL_2024 = london('2023-12-01T00:00:00Z', '2024-12-31T00:00:00Z');

  it('totals every viewable channel: the five status counts and avg/min/max response, in the zone it names', async () => {
    const res = await get(`/metrics?${new URLSearchParams(ALL_2024).toString()}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('metrics-time-zone')).toBe(ZONE);
    expect(res.body).toEqual([
      { total: 7, successful: 3, failed: 2, completed: 1, completedWErrors: 1, processing: 0, avgResp: 1570 / 7, minResp: 20, maxResp: 1000, _id: { channelID: null } },
    ]);
  });

  it('totals per channel, and for one channel', async () => {
    const [ward, lab] = [channels['ward'], channels['lab']];
    const byChannel = await items('/metrics/channels', ALL_2024);
    const expected = [
      { total: 5, successful: 3, failed: 1, completed: 0, completedWErrors: 1, processing: 0, avgResp: 104, minResp: 20, maxResp: 300, _id: { channelID: ward } },
      { total: 2, successful: 0, failed: 1, completed: 1, completedWErrors: 0, processing: 0, avgResp: 525, minResp: 50, maxResp: 1000, _id: { channelID: lab } },
    ].sort((a, b) => ((a._id.channelID ?? '') < (b._id.channelID ?? '') ? -1 : 1));
    expect(byChannel).toEqual(expected);
    expect(await items(`/metrics/channels/${lab}`, ALL_2024)).toEqual(expected.filter((i) => i._id.channelID === lab));
  });

  it('counts a bucket when its start lies within the range, as OpenHIM does', async () => {
    // Only the hour buckets from 00:00 to 00:59 on 1 January: the 00:15 and 00:45 transactions.
    const [total] = await items('/metrics', london('2024-01-01T00:00:00Z', '2024-01-01T00:59:59Z'));
    expect(total?.total).toBe(2);
    expect(await items('/metrics', london('2024-06-01T00:00:00Z', '2024-06-02T00:00:00Z'))).toEqual([]);
  });

  it('serves minute buckets', async () => {
    const start = new Date(recentMinute).toISOString();
    const end = new Date(recentMinute + 5 * 60_000).toISOString();
    const series = await items('/metrics/timeseries/minute', { startDate: start, endDate: end, timeZone: 'UTC' });
    expect(series.map((i) => [i.timestamp, i.total, i.avgResp])).toEqual([
      [new Date(recentMinute).toISOString(), 2, 10],
      [new Date(recentMinute + 60_000).toISOString(), 1, 25],
    ]);
    const perChannel = await items('/metrics/timeseries/minute/channels', { startDate: start, endDate: end, timeZone: 'UTC' });
    expect(perChannel.map((i) => [i._id.channelID, i.total])).toEqual(
      [
        [channels['ward'], 1],
        [channels['lab'], 1],
      ]
        .sort((a, b) => ((a[0] ?? '') < (b[0] ?? '') ? -1 : 1))
        .concat([[channels['ward'], 1]]),
    );
    expect(new Date(recentMinute).getUTCMinutes()).toBe(perChannel[0]?._id.minute);
  });

  it('serves hour buckets across the spring clock change: 01:00 GMT is skipped, 02:00 BST follows 00:00 GMT', async () => {
    const series = await items('/metrics/timeseries/hour', london('2024-03-31T00:00:00Z', '2024-03-31T22:59:59Z'));
    expect(series.map((i) => [i.timestamp, i._id.hour, i.total, i.completedWErrors, i.successful])).toEqual([
      ['2024-03-31T00:00:00.000+00:00', 0, 1, 1, 0],
      ['2024-03-31T02:00:00.000+01:00', 2, 1, 0, 1],
    ]);
  });

  it('serves day buckets of 23 hours on the clock-change day, in the zone asked for', async () => {
    const range = { startDate: '2024-03-30T00:00:00Z', endDate: '2024-04-02T00:00:00Z' };
    const inLondon = await items('/metrics/timeseries/day', { ...range, timeZone: ZONE });
    expect(inLondon.map((i) => [i.timestamp, i._id.day, i.total])).toEqual([
      ['2024-03-31T00:00:00.000+00:00', 0, 2],
      ['2024-04-01T00:00:00.000+01:00', 1, 2],
    ]);
    // In UTC the 23:30 UTC transaction is still on 31 March (read from hour buckets, as London's days do not line up).
    const res = await get(`/metrics/timeseries/day?${new URLSearchParams({ ...range, timeZone: 'UTC' }).toString()}`);
    expect(res.headers.get('metrics-time-zone')).toBe('UTC');
    expect((res.body as Item[]).map((i) => [i.timestamp, i.total])).toEqual([
      ['2024-03-31T00:00:00.000Z', 3],
      ['2024-04-01T00:00:00.000Z', 1],
    ]);
  });

  it('serves ISO weeks starting on Monday, across the year boundary and the clock change', async () => {
    const series = await items('/metrics/timeseries/week', london('2023-12-18T00:00:00Z', '2024-04-08T00:00:00Z'));
    expect(series.map((i) => [i.timestamp, i._id.week, i._id.year, i.total])).toEqual([
      ['2023-12-25T00:00:00.000+00:00', 52, 2023, 1],
      ['2024-01-01T00:00:00.000+00:00', 1, 2024, 2],
      ['2024-03-25T00:00:00.000+00:00', 13, 2024, 2],
      ['2024-04-01T00:00:00.000+01:00', 14, 2024, 2],
    ]);
    const ward = await items(`/metrics/timeseries/week/channels/${channels['ward']}`, london('2023-12-18T00:00:00Z', '2024-04-08T00:00:00Z'));
    expect(ward.map((i) => [i._id.week, i._id.channelID, i.total])).toEqual([
      [52, channels['ward'], 1],
      [1, channels['ward'], 1],
      [13, channels['ward'], 2],
      [14, channels['ward'], 1],
    ]);
  });

  it('serves real month buckets (0-based month), not day buckets', async () => {
    const series = await items('/metrics/timeseries/month', london('2023-12-01T00:00:00Z', '2024-04-30T00:00:00Z'));
    expect(series.map((i) => [i.timestamp, i._id.month, i.total, i.failed, i.maxResp])).toEqual([
      ['2023-12-01T00:00:00.000+00:00', 11, 1, 0, 100],
      ['2024-01-01T00:00:00.000+00:00', 0, 2, 1, 300],
      ['2024-03-01T00:00:00.000+00:00', 2, 2, 0, 40],
      ['2024-04-01T00:00:00.000+01:00', 3, 2, 1, 1000],
    ]);
  });

  it('serves year buckets, per channel too', async () => {
    const range = london('2023-01-01T00:00:00Z', '2024-12-31T00:00:00Z');
    const series = await items('/metrics/timeseries/year', range);
    expect(series.map((i) => [i.timestamp, i._id.year, i.total])).toEqual([
      ['2023-01-01T00:00:00.000+00:00', 2023, 1],
      ['2024-01-01T00:00:00.000+00:00', 2024, 6],
    ]);
    const perChannel = await items('/metrics/timeseries/year/channels', range);
    expect(perChannel.map((i) => [i._id.year, i._id.channelID, i.total])).toEqual(
      [
        [2023, channels['ward'], 1],
        ...[
          [2024, channels['ward'], 4],
          [2024, channels['lab'], 2],
        ].sort((a, b) => (String(a[1]) < String(b[1]) ? -1 : 1)),
      ],
    );
  });

  it('shows a non-admin only the channels their role may view', async () => {
    const [total] = await items('/metrics', ALL_2024, nurse);
    expect(total?.total).toBe(5);
    expect((await items('/metrics/channels', ALL_2024, nurse)).map((i) => i._id.channelID)).toEqual([channels['ward']]);
    const years = await items('/metrics/timeseries/year', london('2024-01-01T00:00:00Z', '2024-12-31T00:00:00Z'), nurse);
    expect(years.map((i) => i.total)).toEqual([4]);
    const query = new URLSearchParams(ALL_2024).toString();
    expect((await get(`/metrics/channels/${channels['lab'] ?? ''}?${query}`, nurse)).status).toBe(403);
    expect((await get(`/metrics/timeseries/day/channels/${channels['lab'] ?? ''}?${query}`, nurse)).status).toBe(403);
    // An id that names no channel is refused the same way, so a non-admin cannot tell which ids exist.
    expect((await get(`/metrics/channels/aaaaaaaaaaaaaaaaaaaaaaaa?${query}`, nurse)).status).toBe(403);
  });

  it('needs credentials', async () => {
    const res = await t.inject(`/metrics?${new URLSearchParams(ALL_2024).toString()}`);
    expect(res.status).toBe(401);
  });

  it('answers 404 to an admin for an unknown channel and 400 for a malformed one', async () => {
    const query = new URLSearchParams(ALL_2024).toString();
    expect((await get(`/metrics/channels/aaaaaaaaaaaaaaaaaaaaaaaa?${query}`)).status).toBe(404);
    expect((await get(`/metrics/timeseries/hour/channels/aaaaaaaaaaaaaaaaaaaaaaaa?${query}`)).status).toBe(404);
    expect((await get(`/metrics/channels/not%20an%20id?${query}`)).status).toBe(400);
  });

  describe('refuses bad queries with 400 naming the problem', () => {
    // OpenHIM's console's Accept: without dates and without it, `GET /metrics` is the Prometheus exposition.
    const refused = async (path: string, query: Record<string, string>): Promise<{ message: string; paths: string[] }> => {
      const res = await get(`${path}?${new URLSearchParams(query).toString()}`, { ...admin, accept: 'application/json, text/plain, */*' });
      expect(res.status, res.text).toBe(400);
      const error = (res.body as { error: { code: string; message: string; details: { path: string }[] } }).error;
      expect(error.code).toBe('VALIDATION_FAILED');
      return { message: error.message, paths: error.details.map((d) => d.path) };
    };

    it('missing dates, in OpenHIM words', async () => {
      for (const path of ['/metrics', '/metrics/channels', '/metrics/timeseries/day']) {
        const missingEnd = await refused(path, { startDate: '2024-01-01T00:00:00Z' });
        expect(missingEnd.message).toContain('Both start and end date are required');
        expect(missingEnd.paths).toEqual(['query.endDate']);
      }
      expect((await refused('/metrics', {})).paths).toEqual(['query.startDate', 'query.endDate']);
    });

    it('a bad date, a bad zone, an unknown period, a range too large, a range backwards', async () => {
      expect((await refused('/metrics', { startDate: 'yesterday', endDate: '2024-01-01T00:00:00Z' })).paths).toEqual(['query.startDate']);
      expect((await refused('/metrics', { ...ALL_2024, timeZone: 'Mars/Olympus' })).paths).toEqual(['query.timeZone']);
      const period = await refused('/metrics/timeseries/fortnight', ALL_2024);
      expect(period.paths).toEqual(['params.timeSeries']);
      expect(period.message).toContain('minute, hour, day, week, month, year');
      expect((await refused('/metrics/timeseries/minute', ALL_2024)).message).toMatch(/more than 10000 minute buckets/);
      expect((await refused('/metrics', london('2024-02-01T00:00:00Z', '2024-01-01T00:00:00Z'))).paths).toEqual(['query.endDate']);
      expect((await refused('/metrics', { ...ALL_2024, colour: 'blue' })).paths.length).toBeGreaterThan(0);
    });
  });
});
