/** Answers of the metrics routes (`GET /metrics…`), in OpenHIM's shape. Import with `import type`. */
export type { MetricItem, MetricItemId } from '../domain/metric-buckets.js';
