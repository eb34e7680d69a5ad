/**
 * Issue 33: Junction watches its data folder's free space. Below the warning threshold /health, /about and the console
 * warn and the admins get one alert per episode; below the floor new transactions are refused (HTTP 503
 * STORE_UNAVAILABLE, an AR NAK over MLLP) before anything is written; when space comes back it takes them again by
 * itself. The disk here is a stand-in whose free space the test sets; tmpfs-full-disk.test.ts fills a real one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { frameMllp } from '../../service/domain/codecs/mllp-framing.js';
import { ROOT_EMAIL, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { adt, msaOf, rawPeer } from '../transports/fixtures.js';
import { hl7Upstream, listeningChannel } from '../messages/hl7-peers.js';
import type { Hl7Upstream, SocketChannelAnswer } from '../messages/hl7-peers.js';

const MiB = 1024 * 1024;

describe('the data folder running out of space', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let up: Upstream;
  let lab: Hl7Upstream;
  let mllp: SocketChannelAnswer;
  let received = 0;
  let freeBytes = 500 * MiB;

  beforeAll(async () => {
    t = await startJunction({ storage: { disk: { warningMB: 100, floorMB: 10, checkIntervalSeconds: 3600 } } }, { measureDisk: () => Promise.resolve({ freeBytes, totalBytes: 1000 * MiB }) });
    admin = { authorization: await unlockRoot(t) };
    up = await httpUpstream((req, res) => {
      void readBody(req).then(() => {
        received += 1;
        res.end('ok');
      });
    });
    lab = await hl7Upstream();
    const res = await t.request('/channels', { method: 'POST', headers: admin, json: { name: 'web', urlPattern: '^/web$', authType: 'public', routes: [{ name: 'up', host: '127.0.0.1', port: up.port, primary: true }] } });
    expect(res.status).toBe(201);
    mllp = await listeningChannel(t, admin, lab.port, 'lab');
  });
  afterAll(async () => {
    await t.destroy();
    await up.close();
    await lab.close();
  });

  const post = () => fetch(`${t.httpUrl}/web`, { method: 'POST', body: 'x'.repeat(1000) });
  const send = async (controlId: string) => (await rawPeer(mllp.tcpPort, (socket) => void socket.write(frameMllp(Buffer.from(adt(controlId)))), 1)).replies.map(msaOf)[0];
  const lowSpaceAlerts = async () => (await t.junction.store.notifications.find({ kind: 'alert' })).filter((n) => n.subject.includes('running out of space'));

  it('with space enough, says nothing and takes transactions', async () => {
    expect((await post()).status).toBe(200);
    const health = await t.request('/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', warnings: [], disk: { level: 'ok', freeBytes: 500 * MiB, refusing: false } });
  });

  it('below the warning threshold, warns in /health and /about and alerts the admins once per episode', async () => {
    freeBytes = 50 * MiB;
    await t.junction.checkDisk();
    await t.junction.checkDisk();
    const health = await t.request('/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', disk: { level: 'low', refusing: false } });
    expect((health.body as { warnings: string[] }).warnings[0]).toMatch(/only 50 MiB free in the data folder, below the warning threshold/);
    const about = await t.request('/about', { headers: admin });
    expect(about.body).toMatchObject({ disk: { level: 'low' }, warnings: [expect.stringMatching(/only 50 MiB free/)] });
    const alerts = await lowSpaceAlerts();
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ method: 'email', to: ROOT_EMAIL });
    expect((await post()).status).toBe(200);
  });

  it('below the floor, refuses new transactions before any write, over HTTP (503) and MLLP (AR), then takes them again by itself', async () => {
    freeBytes = 5 * MiB;
    await t.junction.checkDisk();
    const before = received;
    const stored = await t.junction.transactions.count({});
    const refused = await post();
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('30');
    const answer = (await refused.json()) as { error: { code: string; message: string } };
    expect(answer.error.code).toBe('STORE_UNAVAILABLE');
    expect(answer.error.message).toMatch(/below the floor of 10 MiB/);
    expect(await send('FULL-1')).toEqual({ code: 'AR', controlId: 'FULL-1' });
    // Nothing was written or sent on.
    expect(await t.junction.transactions.count({})).toBe(stored);
    expect(received).toBe(before);
    expect(lab.received.some((m) => m.includes('FULL-1'))).toBe(false);
    const health = await t.request('/health');
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'unavailable', disk: { level: 'critical', refusing: true } });
    expect(t.logs.some((l) => l.level === 50 && String(l.msg).includes('new transactions are refused'))).toBe(true);

    freeBytes = 500 * MiB;
    await t.junction.checkDisk();
    expect((await post()).status).toBe(200);
    expect(await send('BACK-1')).toEqual({ code: 'AA', controlId: 'BACK-1' });
    expect((await t.request('/health')).body).toMatchObject({ status: 'ok', warnings: [], disk: { level: 'ok' } });
    // The same episode: still one alert.
    expect(await lowSpaceAlerts()).toHaveLength(1);
  });
});
