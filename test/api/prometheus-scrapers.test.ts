/**
 * The Prometheus exposition as real scrapers and linters meet it (issue 33): curl with no Accept or `*\/*`, Telegraf's
 * Accept (the classic text format) and Prometheus's (OpenMetrics) each get the exposition in a format they read,
 * without dates; Debian's `promtool check metrics` passes on the text format, and promtool's OpenMetrics parser reads
 * the OpenMetrics one. OpenHIM clients still get the JSON route on the same path.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';

const PROMTOOL = '/usr/bin/promtool';
const PROMETHEUS_ACCEPT = 'application/openmetrics-text;version=1.0.0;q=0.5,application/openmetrics-text;version=0.0.1;q=0.4,text/plain;version=0.0.4;q=0.3,*/*;q=0.2';
/** Telegraf's prometheus input (protobuf first, which Junction does not offer). */
const TELEGRAF_ACCEPT = 'application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited;q=0.7,text/plain;version=0.0.4;q=0.3';
const OPENHIM_CONSOLE_ACCEPT = 'application/json, text/plain, */*';
const TEXT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
const OPENMETRICS_TYPE = 'application/openmetrics-text; version=1.0.0; charset=utf-8';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a program to its end, with `input` on its stdin. */
function run(command: string, args: string[], input = ''): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

describe('Prometheus exposition for every scraper', () => {
  let t: TestJunction;
  let open: TestJunction;
  let upstream: Upstream;
  let admin: string;
  let dir: string;
  let caFile: string;

  /** curl as a person or a cron job runs it: `headers` as given, `-H 'Accept:'` sending none at all. */
  async function curl(on: TestJunction, path: string, headers: string[], credentials = true): Promise<{ status: number; contentType: string; body: string }> {
    const url = new URL(on.url);
    const args = ['-sS', '--cacert', caFile, '--resolve', `localhost:${url.port}:127.0.0.1`, '-w', '\n%{http_code} %{content_type}', ...headers.flatMap((h) => ['-H', h])];
    if (credentials) args.push('-H', `Authorization: ${admin}`);
    const ran = await run('curl', [...args, `https://localhost:${url.port}${path}`]);
    expect(ran.code, ran.stderr).toBe(0);
    const cut = ran.stdout.lastIndexOf('\n');
    const [status, ...type] = ran.stdout.slice(cut + 1).split(' ');
    return { status: Number(status), contentType: type.join(' '), body: ran.stdout.slice(0, cut) };
  }

  beforeAll(async () => {
    t = await startJunction();
    open = await startJunction({ prometheus: { public: true } });
    admin = await unlockRoot(t);
    dir = await mkdtemp(join(tmpdir(), 'junction-promtool-'));
    caFile = join(dir, 'ca.pem');
    // Each instance generated its own certificate.
    await writeFile(caFile, `${t.certificate}\n${open.certificate}`);
    upstream = await httpUpstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    });
    const made = await t.inject('/channels', { method: 'POST', headers: { authorization: admin }, json: { name: 'lab', urlPattern: '^/lab$', authType: 'public', routes: [{ name: 'r', host: '127.0.0.1', port: upstream.port, primary: true }] } });
    if (made.status !== 201) throw new Error(made.text);
    const sent = await fetch(`${t.httpUrl}/lab`);
    await sent.arrayBuffer();
    await completedTransaction(t, sent.headers.get('x-openhim-transactionid'));
    // The counter and histogram have a sample once the completion is announced.
    await until('the transaction counted', async () => ((await curl(t, '/metrics', [`Accept: ${PROMETHEUS_ACCEPT}`])).body.includes('openhim_transactions_total{') ? true : undefined));
  });

  afterAll(async () => {
    await t.destroy();
    await open.destroy();
    await upstream.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers curl without dates, with no Accept or */*, in the classic text format that promtool check metrics passes', async () => {
    for (const headers of [['Accept:'], ['Accept: */*']]) {
      const res = await curl(t, '/metrics', headers);
      expect(res.status, res.body).toBe(200);
      expect(res.contentType).toBe(TEXT_TYPE);
      expect(res.body).toMatch(/^openhim_transactions_total\{channel="lab",status="Successful",code="200",method="GET",client=""\} 1$/m);
      expect(res.body).toMatch(/^openhim_request_duration_seconds_count\{channel="lab",/m);
      const lint = await run(PROMTOOL, ['check', 'metrics'], res.body);
      expect({ code: lint.code, problems: lint.stdout + lint.stderr }).toEqual({ code: 0, problems: '' });
    }
  });

  it("answers Telegraf's Accept in the text format, and Prometheus's in OpenMetrics", async () => {
    const telegraf = await curl(t, '/metrics', [`Accept: ${TELEGRAF_ACCEPT}`]);
    expect(telegraf.status, telegraf.body).toBe(200);
    expect(telegraf.contentType).toBe(TEXT_TYPE);
    expect((await run(PROMTOOL, ['check', 'metrics'], telegraf.body)).code).toBe(0);
    const prometheus = await curl(t, '/metrics', [`Accept: ${PROMETHEUS_ACCEPT}`]);
    expect(prometheus.status, prometheus.body).toBe(200);
    expect(prometheus.contentType).toBe(OPENMETRICS_TYPE);
    expect(prometheus.body.endsWith('# EOF\n')).toBe(true);
    // A dated query with a scraper's Accept is still a scrape (Accept decides, as in OpenHIM).
    const dated = await curl(t, '/metrics?startDate=2024-01-01T00:00:00Z&endDate=2024-01-02T00:00:00Z', ['Accept: text/plain;version=0.0.4']);
    expect(dated.contentType).toBe(TEXT_TYPE);
  });

  it("serves OpenMetrics that promtool's OpenMetrics parser reads whole, and that lints clean but for that parser's counter families", async () => {
    const res = await curl(t, '/metrics/prometheus', ['Accept: application/openmetrics-text']);
    expect(res.contentType).toBe(OPENMETRICS_TYPE);
    const text = res.body;
    // promtool reads OpenMetrics only to import it into blocks, where each sample needs a timestamp.
    const stamped = text.split('\n').map((line) => (line === '' || line.startsWith('#') ? line : `${line} 1700000000`)).join('\n');
    const file = join(dir, 'exposition.om');
    await writeFile(file, stamped);
    const imported = await run(PROMTOOL, ['tsdb', 'create-blocks-from', 'openmetrics', file, join(dir, 'blocks')]);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    // `check metrics` parses the classic format only: an OpenMetrics counter's samples (`x_total`) look to it like a
    // family of their own with no help. Every other rule passes.
    const lint = await run(PROMTOOL, ['check', 'metrics'], text);
    const problems = (lint.stdout + lint.stderr).split('\n').filter((line) => line !== '');
    for (const problem of problems) {
      const family = /^(\w+)_total no help text$/.exec(problem)?.[1];
      expect(family, problem).toBeDefined();
      expect(text).toContain(`# TYPE ${family ?? ''} counter\n`);
    }
  });

  it('leaves out the gauges named ..._total and names the histogram in seconds', async () => {
    const res = await curl(t, '/metrics/prometheus', []);
    expect(res.body).not.toMatch(/^# TYPE \w+_total gauge$/m);
    expect(res.body).toContain('# TYPE openhim_nodejs_active_handles gauge');
    expect(res.body).toContain('# TYPE openhim_request_duration_seconds histogram');
  });

  it('/metrics/prometheus is the exposition whatever the Accept says', async () => {
    const json = await curl(t, '/metrics/prometheus', ['Accept: application/json']);
    expect(json.status).toBe(200);
    expect(json.contentType).toBe(TEXT_TYPE);
    expect((await run(PROMTOOL, ['check', 'metrics'], json.body)).code).toBe(0);
  });

  it('keeps the JSON route for OpenHIM clients: dates give JSON, and no dates with a JSON Accept the 400', async () => {
    const items = await curl(t, '/metrics?startDate=2024-01-01T00:00:00Z&endDate=2024-01-02T00:00:00Z', [`Accept: ${OPENHIM_CONSOLE_ACCEPT}`]);
    expect(items.status).toBe(200);
    expect(items.contentType).toMatch(/^application\/json/);
    expect(Array.isArray(JSON.parse(items.body))).toBe(true);
    const undated = await curl(t, '/metrics', [`Accept: ${OPENHIM_CONSOLE_ACCEPT}`]);
    expect(undated.status).toBe(400);
    expect(undated.body).toContain('Both start and end date are required');
  });

  it('needs an admin unless prometheus.public is set, on both paths', async () => {
    expect((await curl(t, '/metrics', [], false)).status).toBe(401);
    expect((await curl(t, '/metrics/prometheus', [], false)).status).toBe(401);
    const publicCurl = await curl(open, '/metrics', [], false);
    expect(publicCurl.status).toBe(200);
    expect(publicCurl.contentType).toBe(TEXT_TYPE);
    expect((await curl(open, '/metrics/prometheus', [], false)).status).toBe(200);
    // The JSON route still needs a user.
    expect((await curl(open, '/metrics?startDate=2024-01-01T00:00:00Z&endDate=2024-01-02T00:00:00Z', [], false)).status).toBe(401);
  });
});
