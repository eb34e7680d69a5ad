/**
 * Loads the metrics of a period for the charts: the time series (all channels, or one) and the status counts per
 * channel (or the one channel's). Read again when the period or channel changes, on `reload()`, a few seconds after
 * transactions complete (once per burst, so a busy server is not asked on every completion), and when the live
 * feed comes back; a stale answer is dropped.
 */
import { useCallback, useEffect, useState } from 'react';
import type { MetricItem } from '../../../../service/contracts/metrics';
import { getAbout } from '../../api/about';
import { live } from '../../api/live';
import { metricsByChannel, metricsTimeseries, zoneRefused } from '../../api/metrics';
import type { MetricRange, MetricSeries } from '../../api/metrics';
import { fillSeries, periodOption, periodRange } from './metric-view';
import type { PeriodChoice, SeriesPoint } from './metric-view';

export interface MetricsView {
  points: SeriesPoint[];
  /** The status answer: one item per channel, or the channel's one. */
  statusItems: MetricItem[];
  /**
   * The server could not cut the series in this computer's zone (its buckets are stored in another, say a whole-hour
   * one against India's half hour), so it answered in its own; the points are then placed on the local buckets
   * they fall in, which keeps every total right but may shift a bucket by the difference.
   */
  serverZone: boolean;
  loading: boolean;
  error: unknown;
  reload: () => void;
}

/**
 * The time series in the browser's zone or, when the server refuses that one, in the server's own zone (its buckets
 * are cut in its `timeZone` setting, which by default is the zone /about names).
 */
async function seriesIn(series: MetricSeries, range: MetricRange, channelId: string | undefined, signal: AbortSignal): Promise<{ items: MetricItem[]; serverZone: boolean }> {
  try {
    return { items: await metricsTimeseries(series, range, channelId, signal), serverZone: false };
  } catch (err) {
    if (!zoneRefused(err)) throw err;
    const { serverTimezone } = await getAbout(signal);
    if (serverTimezone === range.timeZone) throw err;
    return { items: await metricsTimeseries(series, { ...range, timeZone: serverTimezone }, channelId, signal), serverZone: true };
  }
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
  const [serverZone, setServerZone] = useState(false);
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
    Promise.all([seriesIn(series, range, channelId, controller.signal), metricsByChannel(range, channelId, controller.signal)]).then(
      ([timeseries, byChannel]) => {
        if (controller.signal.aborted) return;
        setPoints(fillSeries(timeseries.items, start, end, series));
        setServerZone(timeseries.serverZone);
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

  return { points, statusItems, serverZone, loading, error, reload };
}
