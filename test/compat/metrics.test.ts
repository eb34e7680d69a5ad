/**
 * OpenHIM compatibility: the metrics routes called as OpenHIM's console calls them (OPENHIM-FACTS 2.5): dates as
 * moment().format() text with the browser's offset, signed in with the console's session cookie, and the answers in
 * OpenHIM's item shape (dashboard: time series and per-channel totals; channel page: its time series and totals).
 * Where Junction answers differently (403 rather than 401 for a channel the user may not view; real month buckets
 * where OpenHIM serves days), the test says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleSession, NEW_ROOT_PASSWORD, ROOT_EMAIL, startCompat } from './openhim-caller.js';
import type { Caller, CompatJunction } from './openhim-caller.js';
import { finishedTransaction } from '../helpers/transactions.js';
import type { TransactionStatus } from '../../service/domain/transactions/transaction-status.js';

const ITEM_KEYS = ['_id', 'avgResp', 'completed', 'completedWErrors', 'failed', 'maxResp', 'minResp', 'processing', 'successful', 'total'];
const TIME_KEYS = ['day', 'hour', 'minute', 'month', 'week', 'year'];

/** moment(at).format() in a browser at UTC+02:00 (South Africa, no DST): ISO 8601, seconds, the offset. */
function momentFormat(at: Date): string {
  const local = new Date(at.getTime() + 2 * 3_600_000).toISOString().slice(0, 19);
  return `${local}+02:00`;
}

/** Angular's $http query encoding: `+` becomes %2B, `:` stays. */
function consoleQuery(from: Date, until: Date): string {
  const encode = (text: string) => encodeURIComponent(text).replace(/%3A/gi, ':');
  return `startDate=${encode(momentFormat(from))}&endDate=${encode(momentFormat(until))}`;
}

describe('OpenHIM compatibility: metrics', () => {
  let c: CompatJunction;
  let browser: Caller;
  let viewer: Caller;
  const channels: Record<string, string> = {};

  async function store(channel: string, at: string, status: TransactionStatus, code: number, ms: number): Promise<void> {
    await c.t.junction.transactions.insert(finishedTransaction({ channelID: channels[channel] ?? '', at, status, code, responseMs: ms }));
  }

  beforeAll(async () => {
    c = await startCompat({ timeZone: 'Africa/Johannesburg' });
    browser = await consoleSession(c, ROOT_EMAIL, NEW_ROOT_PASSWORD);
    viewer = await c.user('viewer@jembi.org', ['HISP']);
    for (const [name, acl] of [['Lab results', ['HISP']], ['Billing', ['finance']]] as const) {
      const res = await c.root.post('/channels', { name, urlPattern: `^/${name.replace(' ', '-')}$`, authType: 'public', txViewAcl: acl, routes: [{ name: 'r', host: '127.0.0.1', port: 9, primary: true }] });
      if (res.status !== 201) throw new Error(res.text);
      channels[name] = (res.body as { _id: string })._id;
    }
    // Tuesday 14 May 2024 in South Africa (UTC+2): 09:10, 09:40 and 14:05 on the lab channel; February on billing.
    await store('Lab results', '2024-05-14T07:10:00Z', 'Successful', 200, 120);
    await store('Lab results', '2024-05-14T07:40:00Z', 'Failed', 500, 80);
    await store('Lab results', '2024-05-14T12:05:00Z', 'Completed', 200, 40);
    await store('Billing', '2024-02-03T10:00:00Z', 'Completed with error(s)', 200, 10);
  });
  afterAll(async () => {
    await c.destroy();
  });

  it('answers the dashboard\'s day view (hour buckets) in OpenHIM\'s item shape, in the browser\'s zone', async () => {
    const res = await browser.get(`/metrics/timeseries/hour?${consoleQuery(new Date('2024-05-13T22:00:00Z'), new Date('2024-05-14T21:59:59Z'))}`);
    expect(res.status).toBe(200);
    // The offsets match the configured zone there, so its days are used.
    expect(res.headers.get('metrics-time-zone')).toBe('Africa/Johannesburg');
    const items = res.body as Record<string, unknown>[];
    expect(items.map((i) => Object.keys(i).sort())).toEqual(Array(2).fill([...ITEM_KEYS, 'timestamp'].sort()));
    expect(items.map((i) => Object.keys(i['_id'] as object).sort())).toEqual(Array(2).fill(TIME_KEYS));
    expect(items).toEqual([
      { total: 2, avgResp: 100, minResp: 80, maxResp: 120, failed: 1, successful: 1, processing: 0, completed: 0, completedWErrors: 0, timestamp: '2024-05-14T09:00:00.000+02:00', _id: { minute: 0, hour: 9, day: 2, week: 20, month: 4, year: 2024 } },
      { total: 1, avgResp: 40, minResp: 40, maxResp: 40, failed: 0, successful: 0, processing: 0, completed: 1, completedWErrors: 0, timestamp: '2024-05-14T14:00:00.000+02:00', _id: { minute: 0, hour: 14, day: 2, week: 20, month: 4, year: 2024 } },
    ]);
  });

  it('answers the dashboard\'s status bars (per-channel totals keyed by _id.channelID)', async () => {
    const res = await browser.get(`/metrics/channels?${consoleQuery(new Date('2024-01-01T00:00:00Z'), new Date('2024-12-31T00:00:00Z'))}`);
    expect(res.status).toBe(200);
    const items = res.body as { _id: { channelID: string }; total: number; completedWErrors: number }[];
    expect(items.map((i) => Object.keys(i).sort())).toEqual(Array(2).fill(ITEM_KEYS));
    const byChannel = Object.fromEntries(items.map((i) => [i._id.channelID, [i.total, i.completedWErrors]]));
    expect(byChannel).toEqual({ [channels['Lab results'] ?? '']: [3, 0], [channels['Billing'] ?? '']: [1, 1] });
  });

  it('answers the year view with one bucket per month (OpenHIM serves day buckets the console then overwrites)', async () => {
    const res = await browser.get(`/metrics/timeseries/month?${consoleQuery(new Date('2023-06-01T00:00:00Z'), new Date('2024-06-01T00:00:00Z'))}`);
    expect(res.status).toBe(200);
    expect((res.body as { timestamp: string; total: number; _id: { month: number } }[]).map((i) => [i.timestamp, i._id.month, i.total])).toEqual([
      ['2024-02-01T00:00:00.000+02:00', 1, 1],
      ['2024-05-01T00:00:00.000+02:00', 4, 3],
    ]);
  });

  it('answers the channel page: its time series and its totals', async () => {
    const id = channels['Lab results'] ?? '';
    const query = consoleQuery(new Date('2024-05-07T22:00:00Z'), new Date('2024-05-14T21:59:59Z'));
    const series = await browser.get(`/metrics/timeseries/day/channels/${id}?${query}`);
    expect(series.status).toBe(200);
    expect((series.body as { timestamp: string; total: number; _id: { channelID: string; day: number } }[]).map((i) => [i.timestamp, i._id.channelID, i._id.day, i.total])).toEqual([['2024-05-14T00:00:00.000+02:00', id, 2, 3]]);
    const totals = await viewer.get(`/metrics/channels/${id}?${query}`);
    expect(totals.status).toBe(200);
    expect(totals.body).toEqual([{ total: 3, avgResp: 80, minResp: 40, maxResp: 120, failed: 1, successful: 1, processing: 0, completed: 1, completedWErrors: 0, _id: { channelID: id } }]);
  });

  it('reads an offset whose + arrived unencoded as a space', async () => {
    const res = await browser.get('/metrics?startDate=2024-05-14T00:00:00+02:00&endDate=2024-05-14T23:59:59+02:00');
    expect(res.status).toBe(200);
    expect((res.body as { total: number }[])[0]?.total).toBe(3);
  });

  it('refuses a missing date with 400 and OpenHIM\'s words', async () => {
    const res = await browser.get(`/metrics/timeseries/day?startDate=${encodeURIComponent(momentFormat(new Date('2024-05-01T00:00:00Z')))}`);
    expect(res.status).toBe(400);
    expect(res.text).toContain('Both start and end date are required');
  });

  it('refuses a channel the user may not view with 403 (OpenHIM: 401 with an empty body)', async () => {
    const res = await viewer.get(`/metrics/channels/${channels['Billing'] ?? ''}?${consoleQuery(new Date('2024-01-01T00:00:00Z'), new Date('2024-12-31T00:00:00Z'))}`);
    expect(res.status).toBe(403);
    const own = await viewer.get(`/metrics/channels?${consoleQuery(new Date('2024-01-01T00:00:00Z'), new Date('2024-12-31T00:00:00Z'))}`);
    expect((own.body as { _id: { channelID: string } }[]).map((i) => i._id.channelID)).toEqual([channels['Lab results']]);
  });
});
