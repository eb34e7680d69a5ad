/** Typed calls of the metrics routes: load, response time and status counts, summed or per channel. */
import type { MetricItem } from '../../../service/contracts/metrics';
import { ApiError, api, seg } from './client';

/** The bucket sizes the server cuts time series into. */
export type MetricSeries = 'minute' | 'hour' | 'day' | 'week' | 'month' | 'year';

export interface MetricRange {
  start: Date;
  end: Date;
  /** IANA zone the buckets are cut in; left out, the server's own (the one its buckets are stored in). */
  timeZone?: string;
}

function rangeQuery(range: MetricRange) {
  return { startDate: range.start.toISOString(), endDate: range.end.toISOString(), timeZone: range.timeZone };
}

/** One item per bucket that has data, oldest first: all viewable channels summed, or one channel. */
export function metricsTimeseries(series: MetricSeries, range: MetricRange, channelId?: string, signal?: AbortSignal): Promise<MetricItem[]> {
  const path = channelId === undefined ? `/metrics/timeseries/${series}` : `/metrics/timeseries/${series}/channels/${seg(channelId)}`;
  return api.get<MetricItem[]>(path, rangeQuery(range), signal);
}

/** Totals over the range: one item per channel with data (keyed by `_id.channelID`), or the one channel's. */
export function metricsByChannel(range: MetricRange, channelId?: string, signal?: AbortSignal): Promise<MetricItem[]> {
  const path = channelId === undefined ? '/metrics/channels' : `/metrics/channels/${seg(channelId)}`;
  return api.get<MetricItem[]>(path, rangeQuery(range), signal);
}

/** True when the server refused the zone: its stored buckets do not add up to buckets cut in that zone. */
export function zoneRefused(err: unknown): boolean {
  return err instanceof ApiError && err.status === 400 && err.problems.some((p) => p.path === 'query.timeZone');
}
