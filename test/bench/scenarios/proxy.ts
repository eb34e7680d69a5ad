/**
 * Proxy cost: the same load (autocannon, 50 connections, 1 KB POST bodies, 1 KB answers) against the upstream
 * directly, a bare undici pass-through proxy, nginx (when installed) and Junction with full storage, all in one run.
 * Then the same targets at an even 1,000 requests/s (lib/load.ts runPaced), where the added p99 is what a clinic's
 * client would notice.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApi, passThroughChannel } from '../lib/api.js';
import { runLoad, runPaced } from '../lib/load.js';
import type { LoadResult } from '../lib/load.js';
import { nginxAvailable, startBareProxy, startJunction, startNginx, startUpstream } from '../lib/processes.js';
import type { Running } from '../lib/processes.js';

export interface ProxyFigures {
  full: Record<string, LoadResult>;
  fixedRate: Record<string, LoadResult>;
  ratios: { junctionToBare: number; junctionToDirect: number; nginxToDirect?: number; bareToDirect: number };
  addedP99AtFixedRateMs: number;
}

const BODY = Buffer.from(JSON.stringify({ resourceType: 'Observation', note: 'y'.repeat(1024 - 44) }).slice(0, 1024));

/** The round with the median of `key` (the rest of its figures come with it, so each row is one real measurement). */
function median(results: LoadResult[], key: 'rps' | 'p99ms'): LoadResult {
  const sorted = [...results].sort((a, b) => a[key] - b[key]);
  const middle = sorted[Math.floor(sorted.length / 2)];
  if (middle === undefined) throw new Error('no rounds measured');
  return middle;
}

/** Runs the proxy comparison: each target gets `seconds` of load in all, split over `rounds` round-robin rounds. */
export async function proxyScenario(seconds: number, rounds = 1): Promise<ProxyFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'junction-bench-proxy-'));
  const running: Running[] = [];
  try {
    const upstream = await startUpstream();
    running.push(upstream);
    const bare = await startBareProxy(upstream.port);
    running.push(bare);
    const junction = await startJunction(join(dir, 'data'));
    running.push(junction);
    const api = await openApi(junction.apiUrl, junction.dataDir);
    // Two channels on one Junction: full storage under /fhir/, metadata only under /meta/.
    await api.json('POST', '/channels', passThroughChannel(upstream.port, 'bench-full', { urlPattern: '^/fhir/.*$' }));
    await api.json('POST', '/channels', passThroughChannel(upstream.port, 'bench-metadata', { urlPattern: '^/meta/.*$', bodies: false }));
    const targets: [string, number, string][] = [
      ['direct', upstream.port, '/fhir/Observation'],
      ['bare undici proxy', bare.port, '/fhir/Observation'],
      ['junction (metadata only)', junction.port, '/meta/Observation'],
      ['junction (full storage)', junction.port, '/fhir/Observation'],
    ];
    if (nginxAvailable()) {
      const nginx = await startNginx(upstream.port, dir);
      running.push(nginx);
      targets.splice(2, 0, ['nginx', nginx.port, '/fhir/Observation']);
    }
    const load = (port: number, path: string, extra: { durationMs: number }) =>
      runLoad({
        url: `http://127.0.0.1:${port}${path}`,
        connections: 50,
        method: 'POST',
        body: BODY,
        headers: { 'content-type': 'application/json' },
        ...extra,
      });
    for (const [, port, path] of targets) await load(port, path, { durationMs: 1000 }); // warm-up: connections, JIT, channel cache
    // Round-robin rounds, reporting each target's median: a noisy neighbour then hits every target alike instead of
    // whichever one happened to run during it.
    const fullRounds: Record<string, LoadResult[]> = {};
    const pacedRounds: Record<string, LoadResult[]> = {};
    for (let round = 0; round < rounds; round++) {
      for (const [name, port, path] of targets) (fullRounds[name] ??= []).push(await load(port, path, { durationMs: (seconds * 1000) / rounds }));
      for (const [name, port, path] of targets) {
        (pacedRounds[name] ??= []).push(
          await runPaced({
            url: `http://127.0.0.1:${port}${path}`,
            rate: 1000,
            durationMs: (seconds * 1000) / rounds,
            connections: 50,
            method: 'POST',
            body: BODY,
            headers: { 'content-type': 'application/json' },
          }),
        );
      }
    }
    const full = Object.fromEntries(Object.entries(fullRounds).map(([name, results]) => [name, median(results, 'rps')]));
    const fixedRate = Object.fromEntries(Object.entries(pacedRounds).map(([name, results]) => [name, median(results, 'p99ms')]));

    const rps = (name: string): number => full[name]?.rps ?? Number.NaN;
    const figures: ProxyFigures = {
      full,
      fixedRate,
      ratios: {
        junctionToBare: rps('junction (full storage)') / rps('bare undici proxy'),
        junctionToDirect: rps('junction (full storage)') / rps('direct'),
        bareToDirect: rps('bare undici proxy') / rps('direct'),
        ...(full.nginx === undefined ? {} : { nginxToDirect: rps('nginx') / rps('direct') }),
      },
      addedP99AtFixedRateMs: (fixedRate['junction (full storage)']?.p99ms ?? Number.NaN) - (fixedRate.direct?.p99ms ?? Number.NaN),
    };
    await api.close();
    return figures;
  } finally {
    for (const process of running.reverse()) await process.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
