/**
 * The Prometheus exposition on `GET /metrics`: real transactions through the HTTP transaction port (one upstream
 * answers after about 50 ms, one fails), then a scrape as Prometheus sends it, parsed with a Prometheus text parser.
 * The counter is labelled by channel, status, code, method and client; the histogram holds seconds, so 50 ms lands
 * in a sub-second bucket rather than +Inf (OpenHIM's defect); the process metrics are there. Credentials: admins only
 * by default, anyone when `prometheus.public` is set, and each instance counts only its own transactions.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import type { ParsedFamily, ParsedSample } from 'parse-prometheus-text-format';
import { basic, completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';

/** What Prometheus 2.x and 3.x send by default when scraping (scrape_protocols left as they are). */
const PROMETHEUS_ACCEPT = 'application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2';

function family(families: ParsedFamily[], name: string): ParsedFamily {
  const found = families.find((f) => f.name === name);
  if (found === undefined) throw new Error(`no ${name} in ${families.map((f) => f.name).join(', ')}`);
  return found;
}

/** The one sample whose labels include all of `labels`. */
function sample(f: ParsedFamily, labels: Record<string, string>): ParsedSample {
  const found = f.metrics.filter((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  if (found.length !== 1) throw new Error(`${found.length} samples of ${f.name} match ${JSON.stringify(labels)}: ${JSON.stringify(f.metrics.map((m) => m.labels))}`);
  return found[0] as ParsedSample;
}

/**
 * One label set's series of a histogram, parsed. The parser flattens every labelled histogram into one (it keeps
 * buckets by `le` alone and count and sum only when unlabelled), so it is given that series' lines with the other
 * labels taken off.
 */
function histogramSeries(text: string, name: string, labels: Record<string, string>): ParsedSample {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const lines = text.split('\n').filter((line) => /^\w+\{/.test(line) && line.startsWith(`${name}_`) && wanted.every((pair) => line.includes(pair)));
  if (lines.length === 0) throw new Error(`no ${name} series with ${wanted.join(',')}`);
  const unlabelled = lines.map((line) => line.replace(/\{([^}]*)\}/, (_all, inner: string) => {
    const le = /le="([^"]*)"/.exec(inner);
    return le === null ? '' : `{le="${le[1] ?? ''}"}`;
  }));
  const [parsed] = parsePrometheusTextFormat([`# TYPE ${name} histogram`, ...unlabelled, ''].join('\n'));
  if (parsed?.type !== 'HISTOGRAM' || parsed.metrics.length !== 1) throw new Error(`could not parse ${name}: ${JSON.stringify(parsed)}`);
  return parsed.metrics[0] as ParsedSample;
}

/**
 * The exposition's text, parsed. The parser reads the Prometheus text format, so the OpenMetrics counter shows as
 * its family (`openhim_transactions`, typed COUNTER) and its samples under their own name, `openhim_transactions_total`.
 */
function parse(res: TestResponse): ParsedFamily[] {
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/openmetrics-text; version=1\.0\.0/);
  expect(res.text.endsWith('# EOF\n')).toBe(true);
  return parsePrometheusTextFormat(res.text);
}

describe('Prometheus exposition', () => {
  let t: TestJunction;
  let open: TestJunction;
  let admin: Record<string, string>;
  const upstreams: Upstream[] = [];

  const scrape = (on: TestJunction, headers: Record<string, string> = {}) => on.request('/metrics', { headers: { accept: PROMETHEUS_ACCEPT, ...headers } });

  beforeAll(async () => {
    t = await startJunction();
    open = await startJunction({ prometheus: { public: true } });
    admin = { authorization: await unlockRoot(t) };
    const slow = await httpUpstream((_req, res) => {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      }, 50);
    });
    const broken = await httpUpstream((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('boom');
    });
    upstreams.push(slow, broken);
    const channel = async (name: string, upstream: Upstream, extra: Record<string, unknown> = {}) => {
      const res = await t.inject('/channels', { method: 'POST', headers: admin, json: { name, urlPattern: `^/${name}$`, authType: 'public', routes: [{ name: 'r', host: '127.0.0.1', port: upstream.port, primary: true }], ...extra } });
      if (res.status !== 201) throw new Error(res.text);
    };
    await channel('slow', slow);
    await channel('broken', broken);
    await channel('private', slow, { authType: 'private', allow: ['lab-role'] });
    const client = await t.inject('/clients', { method: 'POST', headers: admin, json: { clientID: 'lab', name: 'Lab analyser', roles: ['lab-role'], password: 'lab-client-pass-1' } });
    if (client.status !== 201) throw new Error(client.text);
    const nurse = await t.inject('/users', { method: 'POST', headers: admin, json: { email: 'nina@clinic.example', firstname: 'N', surname: 'N', groups: ['nurses'], password: 'user-password-123' } });
    if (nurse.status !== 201) throw new Error(nurse.text);

    const send = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${t.httpUrl}${path}`, { headers });
      await res.arrayBuffer();
      await completedTransaction(t, res.headers.get('x-openhim-transactionid'));
    };
    await send('/slow');
    await send('/slow');
    await send('/broken');
    await send('/private', { authorization: basic('lab', 'lab-client-pass-1') });
  });

  afterAll(async () => {
    await t.destroy();
    await open.destroy();
    for (const u of upstreams) await u.close();
  });

  it('counts transactions by channel, status, code, method and client', async () => {
    // The completion is announced just after the final status is stored.
    const families = await until('four counted transactions', async () => {
      const parsed = parse(await scrape(t, admin));
      const total = parsed.find((f) => f.name === 'openhim_transactions_total')?.metrics.reduce((sum, m) => sum + Number(m.value), 0);
      return total === 4 ? parsed : undefined;
    });
    expect(family(families, 'openhim_transactions').type).toBe('COUNTER');
    const counter = family(families, 'openhim_transactions_total');
    expect(sample(counter, { channel: 'slow' })).toEqual({ value: '2', labels: { channel: 'slow', status: 'Successful', code: '200', method: 'GET', client: '' } });
    expect(sample(counter, { channel: 'broken' }).labels).toEqual({ channel: 'broken', status: 'Failed', code: '500', method: 'GET', client: '' });
    expect(sample(counter, { channel: 'private' }).labels).toEqual({ channel: 'private', status: 'Successful', code: '200', method: 'GET', client: 'Lab analyser' });
  });

  it('observes response times in seconds: a 50 ms upstream lands below a quarter of a second, not in +Inf', async () => {
    const res = await scrape(t, admin);
    const histogram = family(parse(res), 'openhim_request_duration_seconds');
    expect(histogram.type).toBe('HISTOGRAM');
    expect(histogram.help).toMatch(/seconds/);
    const slow = histogramSeries(res.text, 'openhim_request_duration_seconds', { channel: 'slow', status: 'Successful', code: '200' });
    expect(slow.count).toBe('2');
    const sum = Number(slow.sum);
    expect(sum).toBeGreaterThanOrEqual(0.09);
    expect(sum).toBeLessThan(2);
    expect(slow.buckets?.['0.025']).toBe('0');
    expect(slow.buckets?.['0.25']).toBe('2');
    expect(slow.buckets?.['+Inf']).toBe('2');
    // The failing upstream answers at once.
    const broken = histogramSeries(res.text, 'openhim_request_duration_seconds', { channel: 'broken' });
    expect(broken.count).toBe('1');
    expect(broken.buckets?.['0.05']).toBe('1');
  });

  it('includes the process metrics, prefixed openhim_', () => {
    return scrape(t, admin).then((res) => {
      const names = parse(res).map((f) => f.name);
      expect(names).toContain('openhim_process_cpu_user_seconds');
      expect(names).toContain('openhim_process_resident_memory_bytes');
      expect(names).toContain('openhim_nodejs_eventloop_lag_seconds');
    });
  });

  it('needs an admin by default: 401 without credentials, 403 for another user', async () => {
    const anonymous = await scrape(t);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect((await scrape(t, { authorization: basic('nina@clinic.example', 'user-password-123') })).status).toBe(403);
  });

  it('answers the JSON route, not the exposition, without an OpenMetrics Accept', async () => {
    const res = await t.request('/metrics', { headers: { ...admin, accept: 'application/json, text/plain, */*' } });
    expect(res.status).toBe(400);
    expect(res.text).toContain('Both start and end date are required');
  });

  it('is public when prometheus.public is set, and each instance counts only its own transactions', async () => {
    const families = parse(await scrape(open));
    expect(families.find((f) => f.name === 'openhim_transactions_total')).toBeUndefined();
    expect(families.map((f) => f.name)).toContain('openhim_process_cpu_user_seconds');
    // The JSON metrics still need a user.
    expect((await open.request('/metrics?startDate=2024-01-01T00:00:00Z&endDate=2024-01-02T00:00:00Z')).status).toBe(401);
  });
});
