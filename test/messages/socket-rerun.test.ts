/**
 * Re-runs and auto retries of tcp and tls channel transactions, end to end: the re-run is asked for as the console
 * asks (`POST /tasks` with `tids`), goes through the channel's current routes to node-hl7-server, and is linked to its
 * original. Auto retry runs on a 50 ms "minute" and a 50 ms scan (autoRetry.* config).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TransactionRecord } from '../../service/storage/transactions.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { until } from '../helpers/wait.js';
import { adt, freePort, hl7Send, msaOf } from '../transports/fixtures.js';
import { downUntilUp, hl7Upstream, oru, transactionOf } from './hl7-peers.js';
import type { Hl7Upstream } from './hl7-peers.js';

const MINUTE_MS = 50;

interface TaskView {
  _id: string;
  status: string;
  transactions?: { tid: string; tstatus: string; rerunID?: string; rerunStatus?: string; error?: string }[];
}

describe('re-runs and auto retries of socket channel transactions', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  const upstreams: { close(): Promise<void> }[] = [];
  const labCert = generateSelfSigned('lab.clinic.example');
  let labId: string;

  beforeAll(async () => {
    t = await startJunction({ autoRetry: { scanIntervalMs: 100, minuteMs: MINUTE_MS } });
    admin = { authorization: await unlockRoot(t) };
    const lab = await t.request('/clients', { method: 'POST', headers: admin, json: { clientID: 'lab', name: 'Lab', clientDomain: 'lab.clinic.example', certificate: labCert.cert } });
    expect(lab.status, lab.text).toBe(201);
    labId = (lab.body as { _id: string })._id;
  });
  afterAll(async () => {
    await t.destroy();
    for (const upstream of upstreams) await upstream.close();
  });

  async function upstream(): Promise<Hl7Upstream> {
    const up = await hl7Upstream();
    upstreams.push(up);
    return up;
  }

  const route = (port: number) => ({ name: 'lab system', type: 'mllp', host: '127.0.0.1', port, primary: true });

  async function socketChannel(name: string, routePort: number, fields: Record<string, unknown> = {}): Promise<{ _id: string; tcpPort: number }> {
    const tcpPort = await freePort();
    const res = await t.request('/channels', {
      method: 'POST',
      headers: admin,
      json: { name, type: 'tcp', tcpHost: '127.0.0.1', tcpPort, authType: 'public', routes: [route(routePort)], ...fields },
    });
    expect(res.status, res.text).toBe(201);
    return res.body as { _id: string; tcpPort: number };
  }

  /** Re-runs one transaction as the console does, waits for the task to finish, and returns the stored child. */
  async function rerunThroughTask(tid: string): Promise<TransactionRecord> {
    const created = await t.request('/tasks', { method: 'POST', headers: admin, json: { tids: [tid] } });
    expect(created.status, created.text).toBe(201);
    const taskId = (created.body as TaskView)._id;
    const done = await until(`task ${taskId} to complete`, async () => {
      const view = (await t.request(`/tasks/${taskId}`, { headers: admin })).body as TaskView;
      return view.status === 'Completed' ? view : undefined;
    });
    const [item] = done.transactions ?? [];
    expect(item).toMatchObject({ tid, tstatus: 'Completed', rerunStatus: 'Successful' });
    return completedTransaction(t, item?.rerunID ?? null);
  }

  for (const type of ['tcp', 'tls'] as const) {
    it(`re-runs a ${type} channel's transaction through the channel's current route, linked to the original`, async () => {
      const first = await upstream();
      const second = await upstream();
      // The tls channel is private to a client that sends with its certificate: the re-run keeps that client.
      const channel = await socketChannel(`rerun ${type}`, first.port, type === 'tls' ? { type, authType: 'private', allow: ['lab'] } : { type });
      const controlId = `RERUN-${type}`;
      const tls = type === 'tls' ? { ca: t.certificate, servername: 'localhost', cert: labCert.cert, key: labCert.key } : undefined;
      const acks = await hl7Send(channel.tcpPort, [oru(controlId)], tls);
      expect(acks.map(msaOf)).toEqual([{ code: 'AA', controlId }]);
      const original = await transactionOf(t, controlId);
      expect(original.clientID).toBe(type === 'tls' ? labId : undefined);
      expect(first.received.filter((m) => m.includes(`|${controlId}|`))).toHaveLength(1);

      const moved = await t.request(`/channels/${channel._id}`, { method: 'PUT', headers: admin, json: { routes: [route(second.port)] } });
      expect(moved.status, moved.text).toBe(200);
      const child = await rerunThroughTask(original._id);

      expect(child.clientID).toBe(original.clientID);
      expect(child).toMatchObject({ parentID: original._id, channelID: channel._id, status: 'Successful', clientIP: original.clientIP, request: { method: 'POST', path: '/', port: channel.tcpPort } });
      expect(child.request.headers['content-type']).toBe('application/hl7-v2');
      expect(await t.junction.bodies.readText(child.request.body ?? { path: '' })).toBe(await t.junction.bodies.readText(original.request.body ?? { path: '' }));
      expect(msaOf(await t.junction.bodies.readText(child.response?.body ?? { path: '' }))).toEqual({ code: 'AA', controlId });
      // The current route got it again; the old one did not.
      expect(second.received.filter((m) => m.includes(`|${controlId}|`))).toHaveLength(1);
      expect(first.received.filter((m) => m.includes(`|${controlId}|`))).toHaveLength(1);

      const parent = await t.junction.transactions.get(original._id);
      expect(parent).toMatchObject({ wasRerun: true, childIDs: [child._id] });
    });
  }

  it('retries a tcp channel transaction whose upstream was unreachable, and succeeds once the upstream is back', async () => {
    const back = await upstream();
    const down = await downUntilUp(back.port);
    upstreams.push(down);
    const channel = await socketChannel('retry tcp', down.port, { autoRetryEnabled: true, autoRetryPeriodMinutes: 2, autoRetryMaxAttempts: 50 });
    const [ar] = await hl7Send(channel.tcpPort, [adt('RETRY-1')]);
    expect(msaOf(ar ?? '')).toEqual({ code: 'AR', controlId: 'RETRY-1' });
    const original = await transactionOf(t, 'RETRY-1');
    expect(original).toMatchObject({ status: 'Failed', autoRetry: true, autoRetryAttempt: 0 });

    // At least one retry fails while the upstream is still down.
    const firstRetry = await until('the first retry', async () => {
      const parent = await t.junction.transactions.get(original._id);
      const childId = parent?.childIDs?.[0];
      return childId === undefined ? undefined : completedTransaction(t, childId);
    });
    expect(firstRetry).toMatchObject({ parentID: original._id, autoRetryAttempt: 1, status: 'Failed' });

    down.up();
    const last = await until('a successful retry', async () => {
      let tx: TransactionRecord | null = await t.junction.transactions.get(original._id);
      while (tx?.childIDs?.at(-1) !== undefined) tx = await t.junction.transactions.get(tx.childIDs.at(-1) ?? '');
      return tx?.status === 'Successful' ? tx : undefined;
    });
    expect(last).toMatchObject({ autoRetry: false, channelID: channel._id });
    expect(last.autoRetryAttempt).toBeGreaterThan(1);
    expect(back.received.filter((m) => m.includes('|RETRY-1|'))).toHaveLength(1);
    expect(msaOf(await t.junction.bodies.readText(last.response?.body ?? { path: '' }))).toEqual({ code: 'AA', controlId: 'RETRY-1' });
  });
});
