/**
 * The metrics routes' answers (`GET /metrics...`): arrays of OpenHIM's items, times in milliseconds. The zone the
 * buckets were cut in comes in the `Metrics-Time-Zone` response header. Import with `import type`.
 */
import type { MetricPeriod } from './vocabulary.js';

export type { MetricPeriod };

/** The `_id` of an answer item: the channel, and on time series the bucket's wall-clock fields in the query's zone. */
export interface MetricItemId {
  /** null on `/metrics` (all channels), absent on time series summed over channels. */
  channelID?: string | null;
  minute?: number;
  hour?: number;
  /** Day of the week, 0 for Sunday (OpenHIM's moment `day()`). */
  day?: number;
  /** ISO week number. */
  week?: number;
  /** 0 for January. */
  month?: number;
  year?: number;
}

/** One item of a metrics answer, in OpenHIM's shape; times in milliseconds. */
export interface MetricItem {
  total: number;
  avgResp: number;
  minResp: number;
  maxResp: number;
  failed: number;
  successful: number;
  processing: number;
  completed: number;
  completedWErrors: number;
  /** The bucket's start as ISO 8601 with the query zone's offset; time series only. */
  timestamp?: string;
  _id: MetricItemId;
}
