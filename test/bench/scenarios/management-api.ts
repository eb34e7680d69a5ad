/**
 * Management API: requests/s and latency of the management API over HTTPS for an unauthenticated route, a
 * Basic-authenticated route and a session-authenticated route, in one run, so the ratios hold on a noisy machine.
 * The Basic figure shows what the verified-credential cache saves: without it, every request would pay for scrypt.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pino } from 'pino';
import { Pool } from 'undici';
import { resolveConfig } from '../../../service/config/index.js';
import type { JunctionConfig } from '../../../service/config/index.js';
import { Junction } from '../../../service/app.js';
import { hashPassword } from '../../../service/accounts/passwords.js';

const CONNECTIONS = 20;

export interface ManagementApiResult {
  scenario: string;
  requests: number;
  rps: number;
  p50ms: number;
  p99ms: number;
  errors: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

async function load(pool: Pool, scenario: string, path: string, headers: Record<string, string>, durationMs: number): Promise<ManagementApiResult> {
  // One request first: the Basic scenario measures the steady state, after the credential has been verified once.
  await (await pool.request({ method: 'GET', path, headers })).body.dump();
  const latencies: number[] = [];
  let errors = 0;
  const end = performance.now() + durationMs;
  const worker = async () => {
    while (performance.now() < end) {
      const started = performance.now();
      const res = await pool.request({ method: 'GET', path, headers });
      await res.body.dump();
      if (res.statusCode !== 200) errors++;
      latencies.push(performance.now() - started);
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const seconds = (performance.now() - began) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    scenario,
    requests: latencies.length,
    rps: Math.round(latencies.length / seconds),
    p50ms: Number(percentile(latencies, 50).toFixed(2)),
    p99ms: Number(percentile(latencies, 99).toFixed(2)),
    errors,
  };
}

/** Requests/s of an unauthenticated, a Basic and a session-authenticated management request, and scrypt's cost. */
export async function managementApiScenario(seconds: number): Promise<{ scryptMs: number; results: ManagementApiResult[] }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'junction-bench-'));
  const password = 'bench-password-1';
  const resolved = resolveConfig({ file: { dataDir, adminPassword: password, logging: { level: 'silent' } }, env: {} }).config;
  const config = structuredClone<JunctionConfig>(resolved);
  (config.api as { port: number }).port = 0;
  (config.api as { host: string }).host = '127.0.0.1';
  (config.router as { httpPort: number; httpsPort: number }).httpPort = 0;
  (config.router as { httpPort: number; httpsPort: number }).httpsPort = 0;
  const junction = new Junction({ config, logger: pino({ level: 'silent' }), version: 'bench' });
  const started = await junction.start();
  const pool = new Pool(started.apiUrl, { connections: CONNECTIONS, connect: { ca: started.certificate.cert, servername: 'localhost' } });
  try {
    const basicHeader = { authorization: `Basic ${Buffer.from(`root@junction.local:${password}`).toString('base64')}` };
    const login = await pool.request({
      method: 'POST',
      path: '/authenticate/local',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'root@junction.local', password }),
    });
    await login.body.dump();
    const setCookie = login.headers['set-cookie'];
    const cookie = (Array.isArray(setCookie) ? setCookie[0] : setCookie)?.split(';')[0] ?? '';

    const hashRuns = seconds < 10 ? 5 : 20;
    const hashStart = performance.now();
    for (let i = 0; i < hashRuns; i++) await hashPassword('x-password-123');
    const scryptMs = Number(((performance.now() - hashStart) / hashRuns).toFixed(1));

    const ms = seconds * 1000;
    const results = [
      await load(pool, 'GET /heartbeat (no auth)', '/heartbeat', {}, ms),
      await load(pool, 'GET /about (Basic, cached)', '/about', basicHeader, ms),
      await load(pool, 'GET /about (session cookie)', '/about', { cookie }, ms),
    ];
    return { scryptMs, results };
  } finally {
    await pool.close();
    await junction.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
