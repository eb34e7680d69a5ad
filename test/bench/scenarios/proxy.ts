/**
 * Proxy cost: the same load (wrk, one thread, 50 connections, 1 KB POST bodies, 1 KB answers) against the upstream
 * directly, a bare undici pass-through proxy, a bare Fastify proxy (@fastify/http-proxy), nginx (when installed) and
 * Junction, all in one run, with each target's CPU seconds per 1,000 requests read from /proc (every thread of the
 * process, and nginx's workers). Then the same targets at an even 1,000 requests/s (http-pacer/http-pacer.c, an open-loop
 * pacer in C), where the added p99 is what a clinic's client would notice.
 *
 * With a baseline (`--baseline=<folder of another build>`), that build's Junction runs beside this one and takes its
 * turn in every round, so a change is measured against the code before it in the same sitting, alternating.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApi, passThroughChannel } from '../lib/api.js';
import type { LoadResult } from '../lib/load.js';
import { nginxAvailable, startBareProxy, startFastifyProxy, startJunction, startNginx, startUpstream, treeCpuMs } from '../lib/processes.js';
import { runWrk, wrkAvailable } from '../lib/wrk.js';
import { compileHttpPacer, runHttpPacer } from '../http-pacer/programs.js';
import type { Running } from '../lib/processes.js';

/**
 * A round's figures, with the CPU the target used: in ms per request, which is CPU seconds per 1,000 requests (for
 * `direct`, the upstream's own; for a proxy, the proxy's alone), and the load generator's CPU in seconds.
 */
export type ProxyResult = LoadResult & { cpuMsPerRequest?: number; generatorCpuSeconds: number };

export interface ProxyFigures {
  full: Record<string, ProxyResult>;
  fixedRate: Record<string, ProxyResult>;
  ratios: {
    junctionToBare: number;
    junctionToDirect: number;
    junctionToNginx?: number;
    nginxToDirect?: number;
    bareToDirect: number;
    fastifyToBare: number;
    baselineToBare?: number;
    /** Junction's CPU per request over the bare undici proxy's. */
    junctionCpuToBare: number;
    baselineCpuToBare?: number;
  };
  addedP99AtFixedRateMs: number;
  /** The machine's 1, 5 and 15-minute load averages when the scenario ended (it is shared: context for the figures). */
  loadAverage: number[];
  /** With a baseline: this build's full-storage req/s over the baseline's, and the same for CPU per request, per round. */
  againstBaseline?: { rpsRatios: number[]; cpuRatios: number[] };
}

const BODY = Buffer.from(JSON.stringify({ resourceType: 'Observation', note: 'y'.repeat(1024 - 44) }).slice(0, 1024));

/** The round with the median of `key` (the rest of its figures come with it, so each row is one real measurement). */
function median<T extends ProxyResult>(results: T[], key: 'rps' | 'p99ms'): T {
  const sorted = [...results].sort((a, b) => a[key] - b[key]);
  const middle = sorted[Math.floor(sorted.length / 2)];
  if (middle === undefined) throw new Error('no rounds measured');
  return middle;
}

/**
 * Runs the proxy comparison: each target gets `seconds` of load in all, split over `rounds` round-robin rounds;
 * `baselineEntry` adds another build's Junction (its `dist/service/index.js`) as targets of their own.
 */
export async function proxyScenario(seconds: number, rounds = 1, baselineEntry?: string): Promise<ProxyFigures> {
  if (!wrkAvailable()) throw new Error('the proxy benchmark needs wrk on the PATH (Debian: apt-get install wrk)');
  const dir = await mkdtemp(join(tmpdir(), 'junction-bench-proxy-'));
  const running: Running[] = [];
  try {
    const upstream = await startUpstream();
    running.push(upstream);
    const bare = await startBareProxy(upstream.port);
    running.push(bare);
    const fastify = await startFastifyProxy(upstream.port);
    running.push(fastify);
    const junction = await startJunction(join(dir, 'data'));
    running.push(junction);
    const api = await openApi(junction.apiUrl, junction.dataDir);
    // Two channels on one Junction: full storage under /fhir/, metadata only under /meta/.
    await api.json('POST', '/channels', passThroughChannel(upstream.port, 'bench-full', { urlPattern: '^/fhir/.*$' }));
    await api.json('POST', '/channels', passThroughChannel(upstream.port, 'bench-metadata', { urlPattern: '^/meta/.*$', bodies: false }));
    const targets: [string, number, string, number?][] = [
      ['direct', upstream.port, '/fhir/Observation', upstream.child.pid],
      ['bare undici proxy', bare.port, '/fhir/Observation', bare.child.pid],
      ['bare fastify proxy', fastify.port, '/fhir/Observation', fastify.child.pid],
      ['junction (metadata only)', junction.port, '/meta/Observation', junction.child.pid],
      ['junction (full storage)', junction.port, '/fhir/Observation', junction.child.pid],
    ];
    if (baselineEntry !== undefined) {
      const baseline = await startJunction(join(dir, 'baseline-data'), {}, [], baselineEntry);
      running.push(baseline);
      const baselineApi = await openApi(baseline.apiUrl, baseline.dataDir);
      await baselineApi.json('POST', '/channels', passThroughChannel(upstream.port, 'bench-full', { urlPattern: '^/fhir/.*$' }));
      await baselineApi.json('POST', '/channels', passThroughChannel(upstream.port, 'bench-metadata', { urlPattern: '^/meta/.*$', bodies: false }));
      await baselineApi.close();
      targets.push(['baseline (metadata only)', baseline.port, '/meta/Observation', baseline.child.pid], ['baseline (full storage)', baseline.port, '/fhir/Observation', baseline.child.pid]);
    }
    if (nginxAvailable()) {
      const nginx = await startNginx(upstream.port, dir);
      running.push(nginx);
      targets.splice(3, 0, ['nginx', nginx.port, '/fhir/Observation', nginx.child.pid]);
    }
    const load = (port: number, path: string, extra: { durationMs: number }) =>
      runWrk({
        url: `http://127.0.0.1:${port}${path}`,
        connections: 50,
        method: 'POST',
        body: BODY,
        headers: { 'content-type': 'application/json' },
        ...extra,
      });
    const pacer = await compileHttpPacer(dir);
    const paced = (port: number, path: string, durationMs: number) =>
      runHttpPacer(pacer, { port, path, rate: 1000, durationMs, connections: 50, body: { bytes: BODY, contentType: 'application/json' }, workDir: dir });
    /** Runs `measure` and charges the target's CPU (from /proc) over it to each answered request. */
    const withCpu = async (pid: number | undefined, measure: () => Promise<LoadResult & { generatorCpuSeconds: number }>): Promise<ProxyResult> => {
      const before = await treeCpuMs(pid);
      const result: ProxyResult = await measure();
      const cpu = (await treeCpuMs(pid)) - before;
      if (Number.isFinite(cpu) && result.requests > 0) result.cpuMsPerRequest = Number((cpu / result.requests).toFixed(3));
      return result;
    };
    for (const [, port, path] of targets) await load(port, path, { durationMs: 1000 }); // warm-up: connections, JIT, channel cache
    // Round-robin rounds, reporting each target's median: a noisy neighbour then hits every target alike instead of
    // whichever one happened to run during it.
    const fullRounds: Record<string, ProxyResult[]> = {};
    const pacedRounds: Record<string, ProxyResult[]> = {};
    const roundMs = (seconds * 1000) / rounds;
    for (let round = 0; round < rounds; round++) {
      for (const [name, port, path, pid] of targets) (fullRounds[name] ??= []).push(await withCpu(pid, () => load(port, path, { durationMs: roundMs })));
      for (const [name, port, path, pid] of targets) (pacedRounds[name] ??= []).push(await withCpu(pid, () => paced(port, path, roundMs)));
    }
    const full = Object.fromEntries(Object.entries(fullRounds).map(([name, results]) => [name, median(results, 'rps')]));
    const fixedRate = Object.fromEntries(Object.entries(pacedRounds).map(([name, results]) => [name, median(results, 'p99ms')]));

    const rps = (name: string): number => full[name]?.rps ?? Number.NaN;
    const cpu = (name: string): number => full[name]?.cpuMsPerRequest ?? Number.NaN;
    const figures: ProxyFigures = {
      full,
      fixedRate,
      ratios: {
        junctionToBare: rps('junction (full storage)') / rps('bare undici proxy'),
        junctionToDirect: rps('junction (full storage)') / rps('direct'),
        bareToDirect: rps('bare undici proxy') / rps('direct'),
        fastifyToBare: rps('bare fastify proxy') / rps('bare undici proxy'),
        ...(full.nginx === undefined ? {} : { nginxToDirect: rps('nginx') / rps('direct'), junctionToNginx: rps('junction (full storage)') / rps('nginx') }),
        ...(baselineEntry === undefined ? {} : { baselineToBare: rps('baseline (full storage)') / rps('bare undici proxy') }),
        junctionCpuToBare: cpu('junction (full storage)') / cpu('bare undici proxy'),
        ...(baselineEntry === undefined ? {} : { baselineCpuToBare: cpu('baseline (full storage)') / cpu('bare undici proxy') }),
      },
      loadAverage: loadavg().map((n) => Number(n.toFixed(2))),
      addedP99AtFixedRateMs: (fixedRate['junction (full storage)']?.p99ms ?? Number.NaN) - (fixedRate.direct?.p99ms ?? Number.NaN),
    };
    if (baselineEntry !== undefined) {
      const ours = fullRounds['junction (full storage)'] ?? [];
      const theirs = fullRounds['baseline (full storage)'] ?? [];
      const ratio = (a: number | undefined, b: number | undefined) => Number(((a ?? Number.NaN) / (b ?? Number.NaN)).toFixed(3));
      figures.againstBaseline = {
        rpsRatios: ours.map((r, i) => ratio(r.rps, theirs[i]?.rps)),
        cpuRatios: ours.map((r, i) => ratio(r.cpuMsPerRequest, theirs[i]?.cpuMsPerRequest)),
      };
    }
    await api.close();
    return figures;
  } finally {
    for (const process of running.reverse()) await process.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
