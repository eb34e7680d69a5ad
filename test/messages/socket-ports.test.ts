/**
 * The ports of tcp and tls channels through the API, end to end: claims on the service's own ports or another
 * channel's are refused with 400 naming the holder; a port another program holds fails that channel only and is
 * taken once freed; disabling and deleting a channel closes its port and enabling reopens it; GET /about lists them.
 */
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';
import { frameMllp } from '../../service/domain/codecs/mllp-framing.js';
import { until } from '../helpers/wait.js';
import { adt, freePort, hl7Send, msaOf, rawPeer } from '../transports/fixtures.js';
import { hl7Upstream } from './hl7-peers.js';
import type { Hl7Upstream } from './hl7-peers.js';

interface ChannelAnswer {
  _id: string;
  name: string;
  tcpPort: number;
  listener?: { state: string; host: string; port: number; error?: string };
}

const portOf = (url: string) => Number(new URL(url).port);

describe('socket channel ports through the API', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let upstream: Hl7Upstream;

  beforeAll(async () => {
    t = await startJunction();
    admin = { authorization: await unlockRoot(t) };
    upstream = await hl7Upstream();
  });
  afterAll(async () => {
    await t.destroy();
    await upstream.close();
  });

  function create(name: string, tcpPort: number, fields: Record<string, unknown> = {}): Promise<TestResponse> {
    return t.request('/channels', {
      method: 'POST',
      headers: admin,
      json: { name, type: 'tcp', tcpHost: '127.0.0.1', tcpPort, authType: 'public', routes: [{ name: 'lab', type: 'mllp', host: '127.0.0.1', port: upstream.port, primary: true }], ...fields },
    });
  }

  async function listening(name: string, fields: Record<string, unknown> = {}): Promise<ChannelAnswer> {
    const res = await create(name, await freePort(), fields);
    expect(res.status, res.text).toBe(201);
    const channel = res.body as ChannelAnswer;
    expect(channel.listener?.state).toBe('listening');
    return channel;
  }

  const problemOf = (res: TestResponse) => (res.body as { error: { details: { path: string; message: string }[] } }).error.details[0];

  it("refuses the API port, the HTTP transaction port and another channel's port with 400 naming the holder", async () => {
    const api = await create('on the api', portOf(t.url));
    expect(api.status, api.text).toBe(400);
    expect(problemOf(api)).toMatchObject({ path: 'body.tcpPort' });
    expect(problemOf(api)?.message).toContain(`port ${portOf(t.url)} is already used by`);
    expect(problemOf(api)?.message).toMatch(/API/i);

    // On every address (no tcpHost) it clashes too.
    const http = await create('on the http port', portOf(t.httpUrl), { tcpHost: undefined });
    expect(http.status, http.text).toBe(400);
    expect(problemOf(http)?.message).toContain(`port ${portOf(t.httpUrl)} is already used by`);
    expect(problemOf(http)?.message).toMatch(/HTTP/i);

    const first = await listening('holder');
    const second = await create('squatter', first.tcpPort);
    expect(second.status, second.text).toBe(400);
    expect(problemOf(second)?.message).toContain('channel "holder"');
    // Moving an existing channel onto it is refused the same way.
    const other = await listening('mover');
    const moved = await t.request(`/channels/${other._id}`, { method: 'PUT', headers: admin, json: { tcpPort: first.tcpPort } });
    expect(moved.status, moved.text).toBe(400);
    expect(problemOf(moved)?.message).toContain('channel "holder"');
  });

  it('gives a port claimed by two channels created at the same moment to one of them only', async () => {
    const port = await freePort();
    const answers = await Promise.all([create('race one', port), create('race two', port), create('race three', port)]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 400, 400]);
    const winner = answers.find((a) => a.status === 201)?.body as ChannelAnswer;
    expect(winner.listener).toMatchObject({ state: 'listening', port });
    for (const loser of answers.filter((a) => a.status === 400)) expect(problemOf(loser)?.message).toContain(`channel "${winner.name}"`);
  });

  it('fails only the channel whose port another program holds, shows why, and listens once the port is freed and the channel edited', async () => {
    const squatter: Server = createServer();
    await new Promise<void>((resolve) => squatter.listen(0, '127.0.0.1', resolve));
    const heldPort = (squatter.address() as AddressInfo).port;
    let squatterOpen = true;
    try {
      const res = await create('blocked', heldPort);
      expect(res.status, res.text).toBe(201);
      const blocked = res.body as ChannelAnswer;
      expect(blocked.listener).toMatchObject({ state: 'failed', port: heldPort });
      expect(blocked.listener?.error).toContain(String(heldPort));

      const list = await t.request('/channels', { headers: admin });
      const shown = (list.body as ChannelAnswer[]).find((c) => c._id === blocked._id);
      expect(shown?.listener).toMatchObject({ state: 'failed', port: heldPort });

      // Another channel keeps working meanwhile.
      const working = await listening('working');
      expect((await hl7Send(working.tcpPort, [adt('WORKS-1')])).map(msaOf)).toEqual([{ code: 'AA', controlId: 'WORKS-1' }]);

      await new Promise<void>((resolve) => squatter.close(() => resolve()));
      squatterOpen = false;
      const edited = await t.request(`/channels/${blocked._id}`, { method: 'PUT', headers: admin, json: { description: 'port freed' } });
      expect(edited.status, edited.text).toBe(200);
      expect((edited.body as ChannelAnswer).listener).toMatchObject({ state: 'listening', port: heldPort });
      expect((await hl7Send(heldPort, [adt('FREED-1')])).map(msaOf)).toEqual([{ code: 'AA', controlId: 'FREED-1' }]);
    } finally {
      if (squatterOpen) await new Promise<void>((resolve) => squatter.close(() => resolve()));
    }
  });

  it('lists the bound channel ports in GET /about for admins, tcp and tls', async () => {
    const plain = await listening('about tcp');
    const secure = await listening('about tls', { type: 'tls' });
    const about = await t.request('/about', { headers: admin });
    expect(about.status).toBe(200);
    const ports = (about.body as { ports: { purpose: string; protocol: string; port: number }[] }).ports;
    expect(ports).toEqual(expect.arrayContaining([
      expect.objectContaining({ protocol: 'tcp', port: plain.tcpPort }),
      expect.objectContaining({ protocol: 'tls', port: secure.tcpPort }),
    ]));
  });

  it('closes the port when the channel is disabled or deleted, and reopens it when enabled again', async () => {
    const channel = await listening('switched');
    const refused = async () => (await rawPeer(channel.tcpPort, () => undefined, 1, 5_000)).error;

    const disabled = await t.request(`/channels/${channel._id}`, { method: 'PUT', headers: admin, json: { status: 'disabled' } });
    expect(disabled.status, disabled.text).toBe(200);
    expect(await refused()).toBe('ECONNREFUSED');

    const enabled = await t.request(`/channels/${channel._id}`, { method: 'PUT', headers: admin, json: { status: 'enabled' } });
    expect(enabled.status, enabled.text).toBe(200);
    expect((enabled.body as ChannelAnswer).listener).toMatchObject({ state: 'listening', port: channel.tcpPort });
    expect((await hl7Send(channel.tcpPort, [adt('BACK-1')])).map(msaOf)).toEqual([{ code: 'AA', controlId: 'BACK-1' }]);

    const deleted = await t.request(`/channels/${channel._id}`, { method: 'DELETE', headers: admin });
    expect(deleted.status, deleted.text).toBe(200);
    expect(await refused()).toBe('ECONNREFUSED');
    // The port is free for another channel at once.
    const reuse = await create('reuses the port', channel.tcpPort);
    expect(reuse.status, reuse.text).toBe(201);
    expect((reuse.body as ChannelAnswer).listener?.state).toBe('listening');
  });

  it('ends an idle connection when its channel is disabled', async () => {
    const channel = await listening('idle then disabled');
    const started = Date.now();
    const idle = await rawPeer(channel.tcpPort, async () => {
      const res = await t.request(`/channels/${channel._id}`, { method: 'PUT', headers: admin, json: { status: 'disabled' } });
      expect(res.status, res.text).toBe(200);
    }, 1, 8_000);
    expect(idle.closedBy).toBe('server');
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('sends the next message on an open connection through routes changed meanwhile', async () => {
    const other = await hl7Upstream();
    try {
      const channel = await listening('routes change under a connection');
      const answer = await rawPeer(channel.tcpPort, async (socket) => {
        socket.write(frameMllp(Buffer.from(adt('SAME-CONN-1'))));
        await until('the first message upstream', () => (upstream.received.some((m) => m.includes('|SAME-CONN-1|')) ? true : undefined));
        const res = await t.request(`/channels/${channel._id}`, { method: 'PUT', headers: admin, json: { routes: [{ name: 'other lab', type: 'mllp', host: '127.0.0.1', port: other.port, primary: true }] } });
        expect(res.status, res.text).toBe(200);
        socket.write(frameMllp(Buffer.from(adt('SAME-CONN-2'))));
      }, 2);
      expect(answer.replies.map(msaOf)).toEqual([{ code: 'AA', controlId: 'SAME-CONN-1' }, { code: 'AA', controlId: 'SAME-CONN-2' }]);
      expect(other.received.some((m) => m.includes('|SAME-CONN-2|'))).toBe(true);
      expect(upstream.received.some((m) => m.includes('|SAME-CONN-2|'))).toBe(false);
    } finally {
      await other.close();
    }
  });

  it('switches a listener between tcp and tls on the same port, and restores a deleted channel listening', async () => {
    const channel = await listening('becomes tls');
    const toTls = await t.request(`/channels/${channel._id}`, { method: 'PUT', headers: admin, json: { type: 'tls' } });
    expect(toTls.status, toTls.text).toBe(200);
    expect((toTls.body as ChannelAnswer).listener).toMatchObject({ state: 'listening', port: channel.tcpPort });
    const secure = await hl7Send(channel.tcpPort, [adt('NOW-TLS-1')], { ca: t.certificate, servername: 'localhost' });
    expect(secure.map(msaOf)).toEqual([{ code: 'AA', controlId: 'NOW-TLS-1' }]);
    // A plain MLLP sender now speaks to a TLS server: no ACK comes back.
    const plain = await rawPeer(channel.tcpPort, (socket) => void socket.write(frameMllp(Buffer.from(adt('PLAIN-ON-TLS-1')))), 1, 5_000);
    expect(plain.replies).toEqual([]);
    expect(plain.closedBy).not.toBe('timeout');

    // Deleted while it has transactions: kept as deleted, its port closed; restoring it opens the port again.
    const deleted = await t.request(`/channels/${channel._id}`, { method: 'DELETE', headers: admin });
    expect(deleted.status, deleted.text).toBe(200);
    expect((await rawPeer(channel.tcpPort, () => undefined, 1, 5_000)).error).toBe('ECONNREFUSED');
    const restored = await t.request(`/channels/${channel._id}`, { method: 'PUT', headers: admin, json: { status: 'enabled' } });
    expect(restored.status, restored.text).toBe(200);
    expect((restored.body as ChannelAnswer).listener).toMatchObject({ state: 'listening', port: channel.tcpPort });
    expect((await hl7Send(channel.tcpPort, [adt('RESTORED-1')], { ca: t.certificate, servername: 'localhost' })).map(msaOf)).toEqual([{ code: 'AA', controlId: 'RESTORED-1' }]);
  });

  it('stops listening when a tcp channel becomes an http channel', async () => {
    const channel = await listening('becomes http');
    const res = await t.request(`/channels/${channel._id}`, { method: 'PUT', headers: admin, json: { type: 'http', urlPattern: '^/was-tcp$', routes: [{ name: 'web', type: 'http', host: '127.0.0.1', port: upstream.port, primary: true }] } });
    expect(res.status, res.text).toBe(200);
    expect((res.body as ChannelAnswer).listener).toBeUndefined();
    expect((await rawPeer(channel.tcpPort, () => undefined, 1, 5_000)).error).toBe('ECONNREFUSED');
  });
});
