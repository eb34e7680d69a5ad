/**
 * Nothing lost under load: 20,000 requests at full speed (wrk, 50 connections) through Junction, answered 200, 404
 * or 503 by path; then the stored log must hold exactly 20,000 transactions, none left Processing, each with the
 * status its answer implies (2xx Successful, 4xx Completed, 5xx Failed), read back through the NDJSON export.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { openApi, passThroughChannel } from '../lib/api.js';
import { runWrk } from '../lib/wrk.js';
import { ADMIN, startJunction, startUpstream } from '../lib/processes.js';

export interface StressFigures {
  sent: number;
  answered: Record<number, number>;
  errors: number;
  rps: number;
  stored: number;
  byStatus: Record<string, number>;
  wrongStatus: number;
  passed: boolean;
}

const PATHS = ['/status/200/Patient', '/status/503/Observation', '/status/404/Encounter', '/status/200/Condition'];
const EXPECTED: Record<string, string> = { '200': 'Successful', '503': 'Failed', '404': 'Completed' };

/** Sends `amount` requests and checks every one is stored with the right status. */
export async function stressScenario(amount: number): Promise<StressFigures> {
  const dir = await mkdtemp(join(tmpdir(), 'junction-bench-stress-'));
  const upstream = await startUpstream();
  const junction = await startJunction(join(dir, 'data'));
  try {
    const api = await openApi(junction.apiUrl, junction.dataDir);
    await api.json('POST', '/channels', passThroughChannel(upstream.port, 'stress', { urlPattern: '^/status/.*$' }));
    // wrk runs for a time, not a count: after the 20,000th request it sends only a path no channel matches (answered
    // 404 by Junction, nothing stored) until the 20,000 are answered, so none is cut off when it stops.
    const load = await runWrk({
      url: `http://127.0.0.1:${junction.port}/`,
      connections: 50,
      durationMs: 300_000,
      amount: { count: amount, fillerPath: '/unrouted', countedHeader: 'x-received-bytes' },
      method: 'POST',
      body: Buffer.from(JSON.stringify({ resourceType: 'Bundle', note: 'z'.repeat(980) })),
      headers: { 'content-type': 'application/json' },
      paths: PATHS,
    });
    await api.close();

    // Read back through the export, as support staff would, and check each record against what its path asked for.
    const ca = await readFile(join(junction.dataDir, 'keystore', 'server-cert.pem'), 'utf8');
    const dispatcher = new Agent({ connect: { ca, servername: 'localhost' } });
    const res = await request(`${junction.apiUrl}/transactions/export?format=ndjson`, {
      dispatcher,
      headers: { authorization: `Basic ${Buffer.from(`${ADMIN.user}:${ADMIN.password}`).toString('base64')}` },
    });
    const text = await res.body.text();
    await dispatcher.close();
    const byStatus: Record<string, number> = {};
    let stored = 0;
    let wrongStatus = 0;
    for (const line of text.split('\n')) {
      if (line === '') continue;
      const tx = JSON.parse(line) as { status: string; request: { path: string } };
      stored++;
      byStatus[tx.status] = (byStatus[tx.status] ?? 0) + 1;
      const code = /^\/status\/(\d{3})\//.exec(tx.request.path)?.[1] ?? '';
      if (EXPECTED[code] !== tx.status) wrongStatus++;
    }
    const answered = load.statuses;
    const passed =
      stored === amount &&
      wrongStatus === 0 &&
      load.errors + load.timeouts === 0 &&
      (answered[200] ?? 0) + (answered[503] ?? 0) + (answered[404] ?? 0) === amount &&
      byStatus.Successful === answered[200] &&
      byStatus.Failed === answered[503] &&
      byStatus.Completed === answered[404];
    return { sent: amount, answered, errors: load.errors + load.timeouts, rps: load.rps, stored, byStatus, wrongStatus, passed };
  } finally {
    await junction.stop();
    await upstream.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
