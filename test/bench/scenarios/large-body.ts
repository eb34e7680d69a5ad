/**
 * A 100 MB request body through Junction (full storage: the body is also written to its body file, up to the cap),
 * to an upstream that reads it all. Junction's resident memory is sampled from /proc every 20 ms; the figure is the
 * peak growth over its resident memory just before the upload.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { openApi, passThroughChannel } from '../lib/api.js';
import { round } from '../lib/load.js';
import { rssMb, startJunction, startUpstream } from '../lib/processes.js';

export interface LargeBodyFigures {
  megabytes: number;
  status: number;
  upstreamReceivedBytes: number;
  seconds: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  rssGrowthMb: number;
}

/** Sends `megabytes` MB in 64 KB chunks and reports Junction's peak RSS growth. */
export async function largeBodyScenario(megabytes: number): Promise<LargeBodyFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'junction-bench-large-'));
  const upstream = await startUpstream();
  const junction = await startJunction(join(dir, 'data'), { JUNCTION_ROUTER_MAX_BODY_BYTES: String(megabytes * 2 ** 20) });
  try {
    const api = await openApi(junction.apiUrl, junction.dataDir);
    await api.json('POST', '/channels', passThroughChannel(upstream.port, 'large'));
    await api.close();
    // A small request first, so connection pools and code paths are warm before the baseline is taken.
    await (await request(`http://127.0.0.1:${junction.port}/warm`, { method: 'POST', body: 'x' })).body.dump();
    const rssBeforeMb = await rssMb(junction.child.pid);
    let peak = rssBeforeMb;
    const sampler = setInterval(() => {
      rssMb(junction.child.pid).then((mb) => (peak = Math.max(peak, mb)), () => undefined);
    }, 20);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const chunks = (megabytes * 2 ** 20) / chunk.length;
    const body = Readable.from(
      (function* () {
        for (let i = 0; i < chunks; i++) yield chunk;
      })(),
    );
    const started = performance.now();
    const res = await request(`http://127.0.0.1:${junction.port}/upload`, { method: 'POST', body, headers: { 'content-length': String(megabytes * 2 ** 20) } });
    const received = Number(res.headers['x-received-bytes'] ?? 0);
    await res.body.dump();
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, await rssMb(junction.child.pid));
    return {
      megabytes,
      status: res.statusCode,
      upstreamReceivedBytes: received,
      seconds: round(seconds, 1),
      rssBeforeMb: round(rssBeforeMb, 1),
      rssPeakMb: round(peak, 1),
      rssGrowthMb: round(peak - rssBeforeMb, 1),
    };
  } finally {
    await junction.stop();
    await upstream.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
