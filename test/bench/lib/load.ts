/** Load generation with autocannon, with latencies collected per response at sub-millisecond resolution. */
import autocannon from 'autocannon';

export interface LoadOptions {
  url: string;
  connections: number;
  /** Run for this long, or until `amount` requests when that is given. */
  durationMs?: number;
  amount?: number;
  /** Requests per second over all connections; unlimited when absent. */
  rate?: number;
  method?: 'GET' | 'POST';
  body?: Buffer;
  headers?: Record<string, string>;
  /** Paths to cycle through (each connection walks the list); the URL's own path when absent. */
  paths?: string[];
}

export interface LoadResult {
  requests: number;
  rps: number;
  p50ms: number;
  p99ms: number;
  errors: number;
  timeouts: number;
  /** Responses by HTTP status. */
  statuses: Record<number, number>;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** Runs one load and reports throughput, latency percentiles and answers by status. */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let finish: (result: autocannon.Result) => void = () => undefined;
  let fail: (err: unknown) => void = () => undefined;
  const done = new Promise<autocannon.Result>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const instance = autocannon(
    {
    url: options.url,
    connections: options.connections,
    ...(options.amount === undefined ? { duration: Math.max(1, Math.round((options.durationMs ?? 5000) / 1000)) } : { amount: options.amount }),
    ...(options.rate === undefined ? {} : { overallRate: options.rate }),
    method: options.method ?? 'GET',
    body: options.body,
    headers: options.headers,
    requests: options.paths?.map((path) => ({ path })),
    timeout: 30,
    },
    (err: unknown, result: autocannon.Result) => {
      if (err === null || err === undefined) finish(result);
      else fail(err);
    },
  );
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    latencies.push(responseTime);
    statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
  });
  const result = await done;
  const sorted = Float64Array.from(latencies).sort();
  const answered = latencies.length;
  return {
    requests: answered,
    rps: Math.round(answered / result.duration),
    p50ms: round(percentile(sorted, 50)),
    p99ms: round(percentile(sorted, 99)),
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
  };
}

export function round(value: number, digits = 2): number {
  return Number(value.toFixed(digits));
}
