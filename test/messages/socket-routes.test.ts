/**
 * The routes of tcp channels end to end: an `http` route to a real HTTP server (plain answers, an empty 2xx, an
 * error, a mediator's structured response), secondary `mllp` routes to node-hl7-server beside the primary, and a
 * `stream` framing channel with a `tcp` route to a plain net server that reads to the end and answers.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameMllp } from '../../service/domain/codecs/mllp-framing.js';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';
import { adt, freePort, hl7Send, msaOf, rawPeer } from '../transports/fixtures.js';
import { bodyText, hl7Upstream, streamUpstream, transactionOf, transactionsOf } from './hl7-peers.js';
import type { Hl7Upstream } from './hl7-peers.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  raw: Buffer;
}

/** An HL7 ACK text as an HTTP mediator would answer it. */
function httpAck(controlId: string, code = 'AA'): string {
  return `MSH|^~\\&|MEDIATOR|HOSP|LAB|CLINIC|20240101120001||ACK^A01|HTTP-${controlId}|P|2.5\rMSA|${code}|${controlId}\r`;
}

/** A request body as bytes (an upload cut short yields what arrived). */
async function rawBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of req) chunks.push(chunk as Buffer);
  } catch {
    // cut short: what arrived is the answer
  }
  return Buffer.concat(chunks);
}

const controlIdOf = (body: string) => body.split('\r')[0]?.split('|')[9] ?? '';

describe('routes of socket channels end to end', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let http: Upstream;
  const seen: Seen[] = [];
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    t = await startJunction();
    admin = { authorization: await unlockRoot(t) };
    // Answers by the message's control id: what an HTTP mediator behind an MLLP channel could say.
    http = await httpUpstream((req, res) => {
      void rawBody(req).then((raw) => {
        const body = raw.toString('latin1');
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, raw });
        const id = controlIdOf(body);
        if (id.startsWith('EMPTY')) {
          res.writeHead(200);
          res.end();
        } else if (id.startsWith('BOOM')) {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end('boom');
        } else if (id.startsWith('MEDIATOR')) {
          res.writeHead(200, { 'content-type': 'application/json+openhim' });
          res.end(JSON.stringify({
            'x-mediator-urn': 'urn:mediator:hl7-test',
            status: 'Successful',
            response: { status: 200, headers: { 'content-type': 'application/hl7-v2' }, body: httpAck(id), timestamp: new Date().toISOString() },
            orchestrations: [{ name: 'patient lookup', request: { path: '/fhir/Patient', method: 'GET', timestamp: new Date().toISOString() }, response: { status: 200, body: '{"resourceType":"Patient"}', timestamp: new Date().toISOString() } }],
          }));
        } else {
          res.writeHead(200, { 'content-type': 'application/hl7-v2' });
          res.end(httpAck(id));
        }
      });
    });
  });
  afterAll(async () => {
    await t.destroy();
    await http.close();
    for (const close of closers) await close();
  });

  async function hl7(answer?: (message: string) => 'AA' | 'AE' | 'AR'): Promise<Hl7Upstream> {
    const up = await hl7Upstream(answer);
    closers.push(() => up.close());
    return up;
  }

  async function socketChannel(name: string, routes: Record<string, unknown>[], fields: Record<string, unknown> = {}): Promise<{ _id: string; tcpPort: number }> {
    const tcpPort = await freePort();
    const res = await t.request('/channels', {
      method: 'POST',
      headers: admin,
      json: { name, type: 'tcp', tcpHost: '127.0.0.1', tcpPort, authType: 'public', routes, ...fields },
    });
    expect(res.status, res.text).toBe(201);
    return res.body as { _id: string; tcpPort: number };
  }

  describe('an http route on an MLLP channel', () => {
    let port: number;
    beforeAll(async () => {
      port = (await socketChannel('hl7 over http', [{ name: 'mediator', type: 'http', host: '127.0.0.1', port: http.port, path: '/hl7/in', primary: true }])).tcpPort;
    });

    it('POSTs the message to the route path as application/hl7-v2 and frames the HL7 ACK it answers', async () => {
      const [ack] = await hl7Send(port, [adt('PLAIN-1')]);
      expect(msaOf(ack ?? '')).toEqual({ code: 'AA', controlId: 'PLAIN-1' });
      expect(ack).toContain('|HTTP-PLAIN-1|');
      const request = seen.find((s) => controlIdOf(s.body) === 'PLAIN-1');
      expect(request).toMatchObject({ method: 'POST', url: '/hl7/in' });
      expect(request?.headers['content-type']).toBe('application/hl7-v2');
      // node-hl7-client drops the last segment's CR; the body is the message as it arrived.
      expect(request?.body).toBe(adt('PLAIN-1').replace(/\r$/, ''));
      const tx = await transactionOf(t, 'PLAIN-1');
      expect(request?.headers['x-openhim-transactionid']).toBe(tx._id);
      expect(tx).toMatchObject({ status: 'Successful', response: { status: 200 } });
    });

    it('names the MSH-18 character set in the content type sent to the route, and sends the bytes unchanged', async () => {
      const bytes = Buffer.from('MSH|^~\\&|LAB|CLINIC|JUNCTION|HOSP|20240101120000||ADT^A01|LATIN-HTTP-1|P|2.5||||||8859/1\rPID|1||1^^^HOSP^MR||Béranger^Renée\r', 'latin1');
      const answer = await rawPeer(port, (socket) => void socket.write(frameMllp(bytes)), 1);
      expect(answer.replies.map(msaOf)).toEqual([{ code: 'AA', controlId: 'LATIN-HTTP-1' }]);
      const request = seen.find((s) => controlIdOf(s.body) === 'LATIN-HTTP-1');
      // The IANA name an HTTP server knows, not HL7's `8859/1` (issue 33).
      expect(request?.headers['content-type']).toBe('application/hl7-v2; charset=ISO-8859-1');
      expect(request?.headers['content-length']).toBe(String(bytes.length));
      expect(request?.raw.equals(bytes)).toBe(true);
    });

    it('maps each MSH-18 name to its IANA charset; a name with none is sent without a charset, and logged once', async () => {
      const message = (id: string, charset: string) => `MSH|^~\\&|LAB|CLINIC|JUNCTION|HOSP|20240101120000||ADT^A01|${id}|P|2.5||||||${charset}\rPID|1||1^^^HOSP^MR||Ngũgĩ^Wanjirũ\r`;
      const sent = async (id: string, charset: string): Promise<Seen | undefined> => {
        const answer = await rawPeer(port, (socket) => void socket.write(frameMllp(Buffer.from(message(id, charset), 'utf8'))), 1);
        expect(answer.replies.map(msaOf)).toEqual([{ code: 'AA', controlId: id }]);
        return seen.find((s) => controlIdOf(s.body) === id);
      };
      expect((await sent('CHARSET-UTF8', 'UNICODE UTF-8'))?.headers['content-type']).toBe('application/hl7-v2; charset=UTF-8');
      expect((await sent('CHARSET-LATIN9', '8859/15'))?.headers['content-type']).toBe('application/hl7-v2; charset=ISO-8859-15');
      expect((await sent('CHARSET-ASCII', 'ascii'))?.headers['content-type']).toBe('application/hl7-v2; charset=US-ASCII');
      const unknown = await sent('CHARSET-UNKNOWN-1', 'KLINGON "1"');
      expect(unknown?.headers['content-type']).toBe('application/hl7-v2');
      expect((await sent('CHARSET-UNKNOWN-2', 'KLINGON "1"'))?.headers['content-type']).toBe('application/hl7-v2');
      const warned = t.logs.filter((line) => line.characterSet === 'KLINGON "1"');
      expect(warned).toHaveLength(1);
      expect(warned[0]?.channel).toBe('hl7 over http');
      expect(warned[0]?.msg).toContain('no IANA name');
      // The stored request records what was sent.
      expect((await transactionOf(t, 'CHARSET-UNKNOWN-1')).request.headers['content-type']).toBe('application/hl7-v2');
      expect((await transactionOf(t, 'CHARSET-UTF8')).request.headers['content-type']).toBe('application/hl7-v2; charset=UTF-8');
    });

    it('answers an AA of its own when the route accepts the message with an empty 200', async () => {
      const [ack] = await hl7Send(port, [adt('EMPTY-1')]);
      expect(msaOf(ack ?? '')).toEqual({ code: 'AA', controlId: 'EMPTY-1' });
      expect(ack?.split('\r')[0]).toMatch(/^MSH\|\^~\\&\|JUNCTION\|HOSP\|LAB\|CLINIC\|/);
      expect((await transactionOf(t, 'EMPTY-1')).status).toBe('Successful');
    });

    it('answers AR naming the status and the text when the route answers 500', async () => {
      const [ack] = await hl7Send(port, [adt('BOOM-1')]);
      expect(msaOf(ack ?? '')).toEqual({ code: 'AR', controlId: 'BOOM-1' });
      expect(ack).toContain('answered 500: boom');
      const tx = await transactionOf(t, 'BOOM-1');
      expect(tx).toMatchObject({ status: 'Failed', response: { status: 500 } });
    });

    it("unwraps a mediator's structured response: the sender gets its body framed, the orchestrations are stored", async () => {
      const [ack] = await hl7Send(port, [adt('MEDIATOR-1')]);
      expect(msaOf(ack ?? '')).toEqual({ code: 'AA', controlId: 'MEDIATOR-1' });
      expect(ack).toContain('|HTTP-MEDIATOR-1|');
      expect(ack).not.toContain('x-mediator-urn');
      const tx = await transactionOf(t, 'MEDIATOR-1');
      expect(tx).toMatchObject({ status: 'Successful', response: { status: 200 } });
      expect(tx.orchestrations.map((o) => o.name)).toEqual(['patient lookup']);
      expect(msaOf(await bodyText(t, tx.response?.body))).toEqual({ code: 'AA', controlId: 'MEDIATOR-1' });
    });
  });

  it('sends the message to secondary mllp routes too and records their replies, a waiting one only when the primary passes its statusCodesCheck', async () => {
    // The primary accepts ADTs and rejects (AE) anything whose control id starts with REJECT.
    const primary = await hl7((m) => (m.includes('|REJECT') ? 'AE' : 'AA'));
    const copy = await hl7();
    const onlyAfterSuccess = await hl7();
    const channel = await socketChannel('fan out', [
      { name: 'primary', type: 'mllp', host: '127.0.0.1', port: primary.port, primary: true },
      { name: 'archive', type: 'mllp', host: '127.0.0.1', port: copy.port },
      { name: 'billing', type: 'mllp', host: '127.0.0.1', port: onlyAfterSuccess.port, waitPrimaryResponse: true, statusCodesCheck: '2**' },
    ]);
    const [ack, rejected] = await hl7Send(channel.tcpPort, [adt('FAN-1'), adt('REJECT-1')]);
    expect(msaOf(ack ?? '')).toEqual({ code: 'AA', controlId: 'FAN-1' });
    expect(msaOf(rejected ?? '')).toEqual({ code: 'AE', controlId: 'REJECT-1' });

    const fan = await transactionOf(t, 'FAN-1');
    expect(fan.status).toBe('Successful');
    expect(fan.routes.map((r) => r.name).sort()).toEqual(['archive', 'billing']);
    for (const route of fan.routes) {
      expect(route.response?.status).toBe(200);
      expect(msaOf(await bodyText(t, route.response?.body))).toEqual({ code: 'AA', controlId: 'FAN-1' });
    }
    expect(copy.received.map(controlIdOf)).toContain('FAN-1');
    expect(onlyAfterSuccess.received.map(controlIdOf)).toContain('FAN-1');

    // The primary answered AE (a 4xx): the archive still gets it, billing (2** only) does not.
    const reject = await transactionOf(t, 'REJECT-1');
    expect(reject).toMatchObject({ status: 'Completed', response: { status: 400 } });
    expect(reject.routes.map((r) => r.name)).toEqual(['archive']);
    expect(copy.received.map(controlIdOf)).toContain('REJECT-1');
    expect(onlyAfterSuccess.received.map(controlIdOf)).not.toContain('REJECT-1');
  });

  describe('a stream framing channel with a tcp route', () => {
    it('reads to the half-close, answers with what the upstream said, then ends the connection', async () => {
      const upstream = await streamUpstream((message) => `RECEIVED ${message.length} BYTES`);
      closers.push(upstream.close);
      const channel = await socketChannel('stream in', [{ name: 'raw', type: 'tcp', host: '127.0.0.1', port: upstream.port, primary: true }], { tcpFraming: 'stream' });
      const message = adt('STREAM-1');
      const answer = await rawPeer(channel.tcpPort, (socket) => void socket.end(message));
      expect(answer.closedBy).toBe('server');
      expect(answer.data.toString()).toBe(`RECEIVED ${message.length} BYTES`);
      expect(upstream.received.map((b) => b.toString())).toEqual([message]);
      const tx = await transactionOf(t, 'STREAM-1');
      expect(tx).toMatchObject({ status: 'Successful', response: { status: 200 } });
      expect(await bodyText(t, tx.request.body)).toBe(message);
    });

    it('closes the connection without a reply when a message that is not HL7 cannot be routed, and records it Failed', async () => {
      const unreachable = await freePort();
      const channel = await socketChannel('stream nowhere', [{ name: 'gone', type: 'tcp', host: '127.0.0.1', port: unreachable, primary: true }], { tcpFraming: 'stream' });
      const answer = await rawPeer(channel.tcpPort, (socket) => void socket.end('just some bytes, not HL7'));
      expect(answer.closedBy).toBe('server');
      expect(answer.data.length).toBe(0);
      const [tx] = await until('the stream transaction', async () => {
        const found = await transactionsOf(t, channel._id);
        return found.length > 0 && found[0]?.status !== 'Processing' ? found : undefined;
      });
      expect(tx?.status).toBe('Failed');
      expect(tx?.request.headers['content-type']).toBe('application/octet-stream');
      expect(tx?.error?.message ?? '').not.toBe('');
    });

    it('answers an HL7 message on a stream connection whose route cannot be reached with an unframed AR, then ends', async () => {
      const unreachable = await freePort();
      const channel = await socketChannel('stream hl7 nowhere', [{ name: 'gone', type: 'tcp', host: '127.0.0.1', port: unreachable, primary: true }], { tcpFraming: 'stream' });
      const answer = await rawPeer(channel.tcpPort, (socket) => void socket.end(adt('STREAM-AR-1')));
      expect(answer.closedBy).toBe('server');
      const text = answer.data.toString();
      expect(text.startsWith('MSH|')).toBe(true);
      expect(msaOf(text)).toEqual({ code: 'AR', controlId: 'STREAM-AR-1' });
      expect(text).toContain('could not be reached');
      expect((await transactionOf(t, 'STREAM-AR-1')).status).toBe('Failed');
    });

    it('frames nothing when an MLLP-framed message arrives on a stream channel: the frame bytes are the message', async () => {
      const upstream = await streamUpstream((message) => message);
      closers.push(upstream.close);
      const channel = await socketChannel('stream echo', [{ name: 'echo', type: 'tcp', host: '127.0.0.1', port: upstream.port, primary: true }], { tcpFraming: 'stream' });
      const framed = frameMllp(Buffer.from(adt('STREAM-FRAMED-1')));
      const answer = await rawPeer(channel.tcpPort, (socket) => void socket.end(framed));
      expect(answer.closedBy).toBe('server');
      expect(upstream.received[0]?.equals(framed)).toBe(true);
      expect(answer.data.equals(framed)).toBe(true);
    });
  });
});
