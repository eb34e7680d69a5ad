/** Load generation with autocannon, with latencies collected per response at sub-millisecond resolution. */
import autocannon from 'autocannon';
import { Pool } from 'undici';

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

export interface PacedOptions {
  url: string;
  /** Requests per second, sent evenly: one every 1000/rate ms. */
  rate: number;
  durationMs: number;
  connections: number;
  method?: 'GET' | 'POST';
  body?: Buffer;
  headers?: Record<string, string>;
}

/**
 * An open-loop load at an even rate. autocannon's `overallRate` gives each connection a budget per second and sends
 * it at the start of each second, so "1,000 requests/s" arrives as one burst a second and measures queueing in the
 * burst rather than latency at that rate. Here request n is due at start + n/rate, and its latency counts from when
 * it was due, so a target that falls behind is charged for the wait (no coordinated omission).
 */
export async function runPaced(options: PacedOptions): Promise<LoadResult> {
  const target = new URL(options.url);
  const pool = new Pool(target.origin, { connections: options.connections, pipelining: 1 });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let errors = 0;
  const total = Math.round((options.rate * options.durationMs) / 1000);
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  let sent = 0;
  const send = (due: number): void => {
    const request = pool
      .request({ path: target.pathname + target.search, method: options.method ?? 'GET', body: options.body, headers: options.headers })
      .then(async (res) => {
        await res.body.dump();
        latencies.push(performance.now() - due);
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
      })
      .catch(() => {
        errors++;
      })
      .finally(() => inFlight.delete(request));
    inFlight.add(request);
  };
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - started) * options.rate) / 1000));
      while (sent < due) {
        send(started + (sent * 1000) / options.rate);
        sent++;
      }
      if (sent >= total) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  await Promise.all(inFlight);
  const elapsed = (performance.now() - started) / 1000;
  await pool.close();
  const sorted = Float64Array.from(latencies).sort();
  return {
    requests: latencies.length,
    rps: Math.round(latencies.length / elapsed),
    p50ms: round(percentile(sorted, 50)),
    p99ms: round(percentile(sorted, 99)),
    errors,
    timeouts: 0,
    statuses,
  };
}
