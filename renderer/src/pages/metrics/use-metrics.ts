/**
 * Loads the metrics of a period for the charts: the time series (all channels, or one) and the status counts per
 * channel (or the one channel's). Read again when the period or channel changes, and on `reload()`; a stale answer
 * is dropped.
 */
import { useCallback, useEffect, useState } from 'react';
import type { MetricItem } from '../../../../service/contracts/metrics';
import { metricsByChannel, metricsTimeseries } from '../../api/metrics';
import { fillSeries, periodOption, periodRange } from './metric-view';
import type { PeriodChoice, SeriesPoint } from './metric-view';

export interface MetricsView {
  points: SeriesPoint[];
  /** The status answer: one item per channel, or the channel's one. */
  statusItems: MetricItem[];
  loading: boolean;
  error: unknown;
  reload: () => void;
}

/** The browser's IANA zone, which the server cuts the buckets in so they match the ones drawn here. */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

export function useMetrics(choice: PeriodChoice, channelId?: string): MetricsView {
  const [points, setPoints] = useState<SeriesPoint[]>([]);
  const [statusItems, setStatusItems] = useState<MetricItem[]>([]);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const [generation, setGeneration] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    const { series } = periodOption(choice);
    const { start, end } = periodRange(choice, new Date());
    const range = { start, end, timeZone: browserTimeZone() };
    setLoading(true);
    setError(null);
    Promise.all([metricsTimeseries(series, range, channelId, controller.signal), metricsByChannel(range, channelId, controller.signal)]).then(
      ([timeseries, byChannel]) => {
        if (controller.signal.aborted) return;
        setPoints(fillSeries(timeseries, start, end, series));
        setStatusItems(byChannel);
        setLoading(false);
      },
      (err: unknown) => {
        if (controller.signal.aborted) return;
        setError(err);
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [choice, channelId, generation]);

  const reload = useCallback(() => setGeneration((n) => n + 1), []);
  return { points, statusItems, loading, error, reload };
}
