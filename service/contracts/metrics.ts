/**
 * The metrics routes' answers (`GET /metrics...`): arrays of OpenHIM's items, times in milliseconds. The zone the
 * buckets were cut in comes in the `Metrics-Time-Zone` response header. Import with `import type`.
 */
export type { MetricItem, MetricItemId } from '../domain/metric-buckets.js';
export type { MetricPeriod } from '../domain/metric-periods.js';
