/** Request and response schemas of the metrics routes (`/metrics...`), in OpenHIM's names and item shape. */
import { Type } from 'typebox';
import type { Static } from 'typebox';

/**
 * `startDate` and `endDate` are required, but checked by the route (domain/operations/metric-periods.ts `parseMetricsQuery`) so
 * that a missing one gets OpenHIM's words, and so that a Prometheus scrape of `GET /metrics`, which sends neither,
 * reaches the route at all.
 */
export const MetricsQuery = Type.Object(
  {
    startDate: Type.Optional(Type.String({ maxLength: 100, description: 'ISO 8601 with its offset, such as 2026-11-24T07:00:00+02:00' })),
    endDate: Type.Optional(Type.String({ maxLength: 100, description: 'ISO 8601 with its offset' })),
    timeZone: Type.Optional(Type.String({ maxLength: 100, description: 'the IANA zone to cut buckets in; default: the offsets of the dates in the configured zone' })),
  },
  { additionalProperties: false },
);
export type MetricsQuery = Static<typeof MetricsQuery>;

const ChannelID = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$', description: 'a channel _id' });
// Checked by the route, so an unknown period is refused in the same words as the other problems of the query.
const TimeSeries = Type.String({ minLength: 1, maxLength: 20, description: 'minute, hour, day, week, month or year' });

export const MetricsChannelParams = Type.Object({ channelID: ChannelID }, { additionalProperties: false });
export const MetricsSeriesParams = Type.Object({ timeSeries: TimeSeries }, { additionalProperties: false });
export const MetricsSeriesChannelParams = Type.Object({ timeSeries: TimeSeries, channelID: ChannelID }, { additionalProperties: false });

const Count = Type.Integer({ minimum: 0 });
const Millis = Type.Number({ minimum: 0 });

/** One answer item (OpenHIM's shape); `timestamp` and the `_id` time fields on time series only. */
export const MetricItemSchema = Type.Object({
  total: Count,
  avgResp: Millis,
  minResp: Millis,
  maxResp: Millis,
  failed: Count,
  successful: Count,
  processing: Count,
  completed: Count,
  completedWErrors: Count,
  timestamp: Type.Optional(Type.String()),
  _id: Type.Object({
    channelID: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    minute: Type.Optional(Type.Integer()),
    hour: Type.Optional(Type.Integer()),
    day: Type.Optional(Type.Integer()),
    week: Type.Optional(Type.Integer()),
    month: Type.Optional(Type.Integer()),
    year: Type.Optional(Type.Integer()),
  }),
});

export const MetricItemsAnswer = Type.Array(MetricItemSchema);
