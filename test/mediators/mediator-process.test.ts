import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { basic, completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { runMediator } from '../helpers/mediator-process.js';
import type { MediatorEnv, MediatorProcess, MediatorReport } from '../helpers/mediator-process.js';

const URN = 'urn:mediator:encounters';
const MEDIATOR_USER = { email: 'encounter-mediator@clinic.example', firstname: 'Encounter', surname: 'Mediator', groups: ['admin'], password: 'mediator-password-42' };

interface Mediator {
  version: string;
  online: boolean;
  config: Record<string, unknown>;
  installedChannels: { name: string; channelId: string }[];
}
interface Channel {
  _id: string;
  description?: string;
  methods: string[];
  routes: { port: number; primary: boolean }[];
}
interface TxView {
  status: string;
  properties?: Record<string, string>;
  error?: { message: string; stack?: string };
  autoRetry: boolean;
  response: { status: number; body?: string };
  orchestrations: { name: string; request: { path: string; body?: string }; response?: { status: number; body?: string }; error?: { message: string } }[];
}

describe('a real mediator process against Junction', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let upstream: Upstream;
  let env: MediatorEnv;
  const processes: MediatorProcess[] = [];
  const lookups: string[] = [];

  const mediator = async () => (await t.request(`/mediators/${encodeURIComponent(URN)}`, { headers: admin })).body as Mediator;
  const channel = async (id: string) => (await t.request(`/channels/${id}`, { headers: admin })).body as Channel;
  const start = (version: string, extra: Partial<MediatorEnv> = {}) => {
    const p = runMediator({ ...env, MEDIATOR_VERSION: version, ...extra });
    processes.push(p);
    return p;
  };
  const registered = (p: MediatorProcess) => p.next((r) => r.event === 'registered');
  const send = (path: string, body: string) => fetch(`${t.httpUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const transaction = async (id: string | null) => {
    await completedTransaction(t, id);
    return (await t.request(`/transactions/${id ?? ''}`, { headers: admin })).body as TxView;
  };

  let skewMs = 0;
  beforeAll(async () => {
    // The instance's clock runs ahead when the test needs time to pass, rather than the test sleeping.
    t = await startJunction({ mediators: { offlineAfterSeconds: 2 } }, { clock: () => Date.now() + skewMs });
    admin = { authorization: await unlockRoot(t) };
    const made = await t.request('/users', { method: 'POST', headers: admin, json: MEDIATOR_USER });
    if (made.status !== 201) throw new Error(made.text);
    upstream = await httpUpstream((req, res) => {
      void readBody(req).then((body) => {
        lookups.push(body);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ patient: 'P-1', found: true }));
      });
    });
    const caFile = join(t.dataDir, 'pinned-api-cert.pem');
    await writeFile(caFile, t.certificate);
    env = {
      JUNCTION_API: t.url,
      JUNCTION_CA_FILE: caFile,
      MEDIATOR_USER: MEDIATOR_USER.email,
      MEDIATOR_PASSWORD: MEDIATOR_USER.password,
      MEDIATOR_URN: URN,
      MEDIATOR_VERSION: '1.0.0',
      UPSTREAM_URL: `http://127.0.0.1:${upstream.port}`,
      HEARTBEAT_MS: '1000',
    };
  });
  afterAll(async () => {
    for (const p of processes) await p.stop();
    await upstream.close();
    await t.destroy();
  });

  it('registers, fetches its config, heartbeats, serves transactions, follows config changes, upgrades and goes offline', { timeout: 60_000 }, async () => {
    // Registration over HTTPS with Basic auth, then the config fetch (a heartbeat with config: true).
    const v1 = start('1.0.0');
    expect((await registered(v1)).status).toBe(201);
    const fetched = await v1.next((r) => r.event === 'config' && r.source === 'fetch');
    // The heartbeat hands the mediator its real password; every other answer masks it.
    expect(fetched.config).toEqual({ greeting: 'hello', upstreamPassword: 'upstream-secret', retries: 3, mode: 'safe' });
    const from = v1.reports.length;
    const beat = await v1.next((r) => r.event === 'heartbeat' && r.forced === false, { from });
    expect(beat).toMatchObject({ status: 200, withConfig: false });
    const registeredV1 = await mediator();
    expect(registeredV1).toMatchObject({ version: '1.0.0', online: true, config: { greeting: 'hello', upstreamPassword: '********' } });
    const heartbeat = (await t.request('/heartbeat')).body as { mediators: Record<string, number | null> };
    expect(heartbeat.mediators[URN]).toBeGreaterThan(0);

    // Its default channel is installed from the console, and transactions flow through it to the mediator.
    const installed = await t.request(`/mediators/${encodeURIComponent(URN)}/channels`, { method: 'POST', headers: admin, json: [] });
    expect(installed.status).toBe(201);
    const channelId = (installed.body as Channel[])[0]?._id ?? '';
    const v1Port = (await v1.next((r) => r.event === 'listening', { from: 0 })).port as number;
    expect((await channel(channelId)).routes[0]?.port).toBe(v1Port);

    const ok = await send('/encounters/ok', '{"encounter":"E-1"}');
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toBe('application/json');
    expect(ok.headers.get('x-mediator-version')).toBe('1.0.0');
    expect(await ok.json()).toEqual({ greeting: 'hello', version: '1.0.0', upstream: { patient: 'P-1', found: true } });
    await v1.next((r) => r.event === 'request' && r.url === '/encounters/ok' && r.body === '{"encounter":"E-1"}', { from: 0 });
    const okTx = await transaction(ok.headers.get('x-openhim-transactionid'));
    expect(okTx).toMatchObject({ status: 'Successful', properties: { mediatorVersion: '1.0.0', greeting: 'hello' }, autoRetry: false, response: { status: 200 } });
    expect(okTx.orchestrations).toHaveLength(1);
    expect(okTx.orchestrations[0]).toMatchObject({ name: 'upstream lookup', request: { path: '/lookup' }, response: { status: 200, body: '{"patient":"P-1","found":true}' } });
    expect(JSON.parse(okTx.orchestrations[0]?.request.body ?? '{}')).toEqual({ asked: '/encounters/ok', received: '{"encounter":"E-1"}' });

    // The mediator's status wins over the computed one.
    const partial = await send('/encounters/override', '{}');
    expect(partial.status).toBe(200);
    expect((await transaction(partial.headers.get('x-openhim-transactionid'))).status).toBe('Completed');

    // A reported error is stored (top level and in its orchestration) and queues an auto retry on this channel.
    const failed = await send('/encounters/error', '{}');
    expect(failed.status).toBe(502);
    const failedTx = await transaction(failed.headers.get('x-openhim-transactionid'));
    expect(failedTx).toMatchObject({ status: 'Failed', autoRetry: true, error: { message: 'the lab system rejected the order' } });
    expect(failedTx.error?.stack).toContain('lab.js');
    expect(failedTx.orchestrations.map((o) => o.error?.message)).toEqual([undefined, 'lab refused']);

    // A config change made through the API reaches the mediator in its next heartbeat; the masked password stays.
    const changed = await t.request(`/mediators/${encodeURIComponent(URN)}/config`, {
      method: 'PUT',
      headers: admin,
      json: { ...registeredV1.config, greeting: 'bonjour' },
    });
    expect(changed.status).toBe(200);
    const pushed = await v1.next((r) => r.event === 'config' && r.source === 'heartbeat');
    expect(pushed.config).toEqual({ greeting: 'bonjour', upstreamPassword: 'upstream-secret', retries: 3, mode: 'safe' });
    // ...once: the heartbeat after it is empty again.
    const afterPush = v1.reports.length;
    expect(await v1.next((r) => r.event === 'heartbeat', { from: afterPush })).toMatchObject({ withConfig: false });
    expect(await (await send('/encounters/ok', '{}')).json()).toMatchObject({ greeting: 'bonjour' });

    // Version 2 replaces version 1: the installed channel follows its new defaults, the configured values stay.
    await v1.stop();
    const v2 = start('2.0.0', { CHANNEL_METHODS: 'POST,PUT' });
    expect((await registered(v2)).status).toBe(201);
    const v2Config = await v2.next((r: MediatorReport) => r.event === 'config' && r.source === 'fetch');
    expect(v2Config.config).toMatchObject({ greeting: 'bonjour', upstreamPassword: 'upstream-secret' });
    const v2Port = (await v2.next((r) => r.event === 'listening', { from: 0 })).port as number;
    const upgraded = await channel(channelId);
    expect(upgraded).toMatchObject({ description: 'installed by 2.0.0', methods: ['POST', 'PUT'] });
    expect(upgraded.routes[0]?.port).toBe(v2Port);
    expect((await mediator()).version).toBe('2.0.0');
    const viaV2 = await fetch(`${t.httpUrl}/encounters/ok`, { method: 'PUT', body: '{}' });
    expect(await viaV2.json()).toMatchObject({ version: '2.0.0', greeting: 'bonjour' });

    // An older version registering again changes nothing.
    const old = start('1.5.0', { CHANNEL_METHODS: 'GET' });
    expect((await registered(old)).status).toBe(201);
    await old.stop();
    expect((await mediator()).version).toBe('2.0.0');
    expect(await channel(channelId)).toMatchObject({ description: 'installed by 2.0.0', methods: ['POST', 'PUT'] });
    expect((await channel(channelId)).routes[0]?.port).toBe(v2Port);

    // Once its heartbeats stop, the mediator shows offline (2 s here, passed on the instance's clock; 60 s by default).
    v2.send('stop-heartbeats');
    await v2.next((r) => r.event === 'heartbeats-stopped', { from: 0 });
    expect((await mediator()).online).toBe(true);
    skewMs += 2500;
    expect((await mediator()).online).toBe(false);
    const silent = (await t.request('/heartbeat')).body as { mediators: Record<string, number | null> };
    expect(silent.mediators[URN]).toBeNull();
    expect(lookups.length).toBeGreaterThanOrEqual(5);
  });

  it('refuses a mediator that logs in as a user outside the admin group', async () => {
    const user = { ...MEDIATOR_USER, email: 'not-admin@clinic.example', groups: ['lab'] };
    expect((await t.request('/users', { method: 'POST', headers: admin, json: user })).status).toBe(201);
    const p = start('9.0.0', { MEDIATOR_USER: user.email, MEDIATOR_URN: 'urn:mediator:intruder' });
    const refused = await registered(p);
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.text as string)).toMatchObject({ error: { code: 'FORBIDDEN' } });
    expect((await t.request('/mediators/urn:mediator:intruder', { headers: { authorization: basic(MEDIATOR_USER.email, MEDIATOR_USER.password) } })).status).toBe(404);
  });
});
