/**
 * HTTP channels with `mllp` and `tcp` routes: a web system posts an HL7 message over HTTP(S) and Junction delivers it
 * to an MLLP upstream (node-hl7-server here) or a raw TCP one, answering with the upstream's reply.
 */
import { createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetch } from 'undici';
import { completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { hl7Upstream, oru } from '../messages/hl7-peers.js';
import type { Hl7Upstream } from '../messages/hl7-peers.js';
import { freePort, msaOf } from '../transports/fixtures.js';

describe('mllp and tcp routes on an HTTP channel', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let accepting: Hl7Upstream;
  let rejecting: Hl7Upstream;
  let shouting: Server;

  beforeAll(async () => {
    t = await startJunction();
    admin = { authorization: await unlockRoot(t) };
    accepting = await hl7Upstream();
    rejecting = await hl7Upstream(() => 'AE');
    // A TCP upstream that reads to the end and answers the message in capitals.
    shouting = createServer({ allowHalfOpen: true }, (socket) => {
      const parts: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => parts.push(chunk));
      socket.on('end', () => socket.end(Buffer.concat(parts).toString().toUpperCase()));
    });
    await new Promise<void>((resolve) => shouting.listen(0, '127.0.0.1', resolve));
    const unreachable = await freePort();
    const routes: Record<string, Record<string, unknown>> = {
      accept: { type: 'mllp', port: accepting.port },
      reject: { type: 'mllp', port: rejecting.port },
      shout: { type: 'tcp', port: (shouting.address() as AddressInfo).port },
      gone: { type: 'mllp', port: unreachable },
    };
    for (const [name, route] of Object.entries(routes)) {
      const res = await t.request('/channels', {
        method: 'POST',
        headers: admin,
        json: { name, urlPattern: `^/${name}$`, authType: 'public', routes: [{ name, host: '127.0.0.1', primary: true, ...route }] },
      });
      expect(res.status, res.text).toBe(201);
    }
  });
  afterAll(async () => {
    await t.destroy();
    await accepting.close();
    await rejecting.close();
    await new Promise<void>((resolve) => shouting.close(() => resolve()));
  });

  async function post(path: string, body: string) {
    const res = await fetch(`${t.httpUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/hl7-v2' }, body });
    const text = await res.text();
    const tx = await completedTransaction(t, res.headers.get('x-openhim-transactionid'));
    return { status: res.status, type: res.headers.get('content-type'), text, tx };
  }

  it('delivers the body to an MLLP upstream and answers with its ACK', async () => {
    const { status, type, text, tx } = await post('/accept', oru('WEB-1'));
    expect(status).toBe(200);
    expect(type).toBe('application/hl7-v2');
    expect(msaOf(text)).toEqual({ code: 'AA', controlId: 'WEB-1' });
    expect(accepting.received.some((m) => m.includes('|WEB-1|'))).toBe(true);
    expect(tx.status).toBe('Successful');
  });

  it('reads an AE from the upstream as a 400', async () => {
    const { status, text, tx } = await post('/reject', oru('WEB-2'));
    expect(status).toBe(400);
    expect(msaOf(text).code).toBe('AE');
    expect(tx.status).toBe('Completed');
  });

  it('writes, half-closes and reads to the end on a TCP route', async () => {
    const { status, text, tx } = await post('/shout', 'hello lab');
    expect(status).toBe(200);
    expect(text).toBe('HELLO LAB');
    expect(tx.status).toBe('Successful');
  });

  it('answers 500 naming the upstream when it cannot be reached', async () => {
    const { status, text, tx } = await post('/gone', oru('WEB-3'));
    expect(status).toBe(500);
    expect(text).toContain('MLLP upstream 127.0.0.1:');
    expect(tx.status).toBe('Failed');
    expect(tx.autoRetry).toBe(false);
  });
});
