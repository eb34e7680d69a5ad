/**
 * Loads the metrics of a period for the charts: the time series (all channels, or one) and the status counts per
 * channel (or the one channel's). Read again when the period or channel changes, on `reload()`, a few seconds after
 * transactions complete (once per burst, so a busy server is not asked on every completion), and when the live
 * feed comes back; a stale answer is dropped.
 */
import { useCallback, useEffect, useState } from 'react';
import type { MetricItem } from '../../../../service/contracts/metrics';
import { live } from '../../api/live';
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
/** How long after a completion the charts are read again: the server records metrics just after the final status. */
export const LIVE_RELOAD_MS = 5000;

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

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | null = null;
    const offs = [
      live.on('transaction.completed', (event) => {
        if (channelId !== undefined && event.channelID !== channelId) return;
        timer ??= setTimeout(() => {
          timer = null;
          reload();
        }, LIVE_RELOAD_MS);
      }),
      live.onReconnect(reload),
    ];
    return () => {
      for (const off of offs) off();
      if (timer !== null) clearTimeout(timer);
    };
  }, [channelId, reload]);

  return { points, statusItems, loading, error, reload };
}
