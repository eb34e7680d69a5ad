/**
 * Who may send on tcp and tls channels, end to end: node-hl7-client and tls.connect send over real TLS to a real
 * Junction (trusting its certificate), with client certificates the test generates, and node-hl7-server answers as
 * the upstream. Also: the live feed's completion event for a socket transaction, and a latin1 message stored byte for
 * byte.
 */
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameMllp } from '../../service/domain/codecs/mllp-framing.js';
import type { TransactionEvent } from '../../service/events/live.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { until } from '../helpers/wait.js';
import { adt, hl7Send, msaOf, rawPeer } from '../transports/fixtures.js';
import { hl7Upstream, issuedClientCertificate, listeningChannel, tlsPeer, transactionOf, transactionsOf } from './hl7-peers.js';
import type { Hl7Upstream } from './hl7-peers.js';

describe('tls and private tcp channels end to end', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let upstream: Hl7Upstream;
  const labCert = generateSelfSigned('lab.clinic.example');
  const wardCert = generateSelfSigned('ward.clinic.example');
  const strangerCert = generateSelfSigned('stranger.clinic.example');
  const clientIds: Record<string, string> = {};
  const completed: TransactionEvent[] = [];

  // Issued by a CA in tls.trustedCAFiles, registered to no client: its CN names the client by its clientDomain.
  const radiologyCert = issuedClientCertificate('radiology.clinic.example');
  let caDir: string;

  beforeAll(async () => {
    caDir = await tempDir('junction-ca-');
    const caFile = join(caDir, 'radiology-ca.pem');
    await writeFile(caFile, radiologyCert.ca);
    t = await startJunction({ tls: { trustedCAFiles: [caFile] } });
    admin = { authorization: await unlockRoot(t) };
    upstream = await hl7Upstream();
    for (const [clientID, domain, cert] of [['lab', 'lab.clinic.example', labCert.cert], ['ward', 'ward.clinic.example', wardCert.cert], ['radiology', 'radiology.clinic.example', undefined]] as const) {
      const res = await t.request('/clients', { method: 'POST', headers: admin, json: { clientID, name: clientID, clientDomain: domain, ...(cert === undefined ? {} : { certificate: cert }) } });
      expect(res.status, res.text).toBe(201);
      clientIds[clientID] = (res.body as { _id: string })._id;
    }
    t.junction.events.on('transaction.completed', (e) => completed.push(e));
  });
  afterAll(async () => {
    await t.destroy();
    await upstream.close();
    await rm(caDir, { recursive: true, force: true });
  });

  const socketChannel = (name: string, fields: Record<string, unknown>) => listeningChannel(t, admin, upstream.port, name, fields);

  const trustJunction = () => ({ ca: t.certificate, servername: 'localhost' });

  it('takes a message over TLS from node-hl7-client without a certificate on a public channel', async () => {
    const channel = await socketChannel('tls public', { type: 'tls' });
    const acks = await hl7Send(channel.tcpPort, [adt('TLS-PUB-1')], trustJunction());
    expect(acks.map(msaOf)).toEqual([{ code: 'AA', controlId: 'TLS-PUB-1' }]);
    expect(upstream.received.some((m) => m.includes('|TLS-PUB-1|'))).toBe(true);
    const tx = await transactionOf(t, 'TLS-PUB-1');
    expect(tx).toMatchObject({ channelID: channel._id, status: 'Successful', request: { port: channel.tcpPort } });
    expect(tx.clientID).toBeUndefined();
  });

  it('with requireClientCertificate: closes a sender without a certificate unanswered, admits a registered one as its client', async () => {
    const channel = await socketChannel('tls required', { type: 'tls', requireClientCertificate: true });
    const bare = await tlsPeer(channel.tcpPort, trustJunction(), [adt('TLS-BARE-1')], 1, 5_000);
    expect(bare.replies).toEqual([]);
    expect(bare.closedBy).not.toBe('timeout');

    const acks = await hl7Send(channel.tcpPort, [adt('TLS-LAB-1')], { ...trustJunction(), cert: labCert.cert, key: labCert.key });
    expect(acks.map(msaOf)).toEqual([{ code: 'AA', controlId: 'TLS-LAB-1' }]);
    const tx = await transactionOf(t, 'TLS-LAB-1');
    expect(tx).toMatchObject({ channelID: channel._id, status: 'Successful', clientID: clientIds.lab, clientIP: '127.0.0.1' });
    // Only the admitted message was stored.
    expect((await transactionsOf(t, channel._id)).map((r) => r._id)).toEqual([tx._id]);
  });

  it('admits a certificate issued by a trusted CA whose CN is a client\'s clientDomain', async () => {
    const channel = await socketChannel('tls trusted ca', { type: 'tls', requireClientCertificate: true, authType: 'private', allow: ['radiology'] });
    const acks = await hl7Send(channel.tcpPort, [adt('TLS-CA-1')], { ...trustJunction(), cert: radiologyCert.cert, key: radiologyCert.key });
    expect(acks.map(msaOf), acks[0]).toEqual([{ code: 'AA', controlId: 'TLS-CA-1' }]);
    expect(await transactionOf(t, 'TLS-CA-1')).toMatchObject({ status: 'Successful', clientID: clientIds.radiology });
  });

  it('answers AR naming the reason to a certificate registered to no client, and stores nothing', async () => {
    const channel = await socketChannel('tls stranger', { type: 'tls', requireClientCertificate: true });
    const answer = await tlsPeer(channel.tcpPort, { ...trustJunction(), cert: strangerCert.cert, key: strangerCert.key }, [adt('TLS-STRANGER-1')]);
    expect(answer.replies.map(msaOf)).toEqual([{ code: 'AR', controlId: 'TLS-STRANGER-1' }]);
    expect(answer.replies[0]?.toString()).toContain('client certificate was refused');
    expect(upstream.received.some((m) => m.includes('|TLS-STRANGER-1|'))).toBe(false);
    expect(await transactionsOf(t, channel._id)).toEqual([]);
  });

  it("applies a private tls channel's allow list: client A gets through, client B's certificate gets AR", async () => {
    const channel = await socketChannel('tls lab only', { type: 'tls', authType: 'private', allow: ['lab'] });
    const [ok] = await hl7Send(channel.tcpPort, [adt('TLS-ALLOW-1')], { ...trustJunction(), cert: labCert.cert, key: labCert.key });
    expect(msaOf(ok ?? '')).toEqual({ code: 'AA', controlId: 'TLS-ALLOW-1' });

    const refused = await tlsPeer(channel.tcpPort, { ...trustJunction(), cert: wardCert.cert, key: wardCert.key }, [adt('TLS-WARD-1')]);
    expect(refused.replies.map(msaOf)).toEqual([{ code: 'AR', controlId: 'TLS-WARD-1' }]);
    expect(refused.replies[0]?.toString()).toContain('client ward may not use channel tls lab only');
    const stored = await transactionsOf(t, channel._id);
    expect(stored.map((r) => r.clientID)).toEqual([clientIds.lab]);
  });

  it('refuses a private tcp channel to an unknown sender with AR, and admits a whitelisted address', async () => {
    const channel = await socketChannel('tcp private', { authType: 'private', allow: ['lab'] });
    const refused = await rawPeer(channel.tcpPort, (socket) => void socket.write(frameMllp(Buffer.from(adt('PRIV-1')))), 1);
    expect(refused.replies.map(msaOf)).toEqual([{ code: 'AR', controlId: 'PRIV-1' }]);
    expect(refused.replies[0]?.toString()).toContain('address 127.0.0.1 may not use channel tcp private');
    expect(await transactionsOf(t, channel._id)).toEqual([]);

    const put = await t.request(`/channels/${channel._id}`, { method: 'PUT', headers: admin, json: { whitelist: ['127.0.0.1'] } });
    expect(put.status, put.text).toBe(200);
    const acks = await hl7Send(channel.tcpPort, [adt('PRIV-2')]);
    expect(acks.map(msaOf)).toEqual([{ code: 'AA', controlId: 'PRIV-2' }]);
    expect((await transactionOf(t, 'PRIV-2')).status).toBe('Successful');
  });

  it('announces a socket transaction on the live feed when it completes, with its status', async () => {
    const channel = await socketChannel('tcp feed', {});
    const [ack] = await hl7Send(channel.tcpPort, [adt('FEED-1')]);
    expect(msaOf(ack ?? '').code).toBe('AA');
    const tx = await transactionOf(t, 'FEED-1');
    const event = await until('the completion event', () => completed.find((e) => e.transactionId === tx._id));
    expect(event).toMatchObject({ channelID: channel._id, status: 'Successful', responseStatus: 200, method: 'POST', path: '/' });
  });

  it('stores a latin1 message (MSH-18 8859/1) byte for byte, its content type naming the character set', async () => {
    const channel = await socketChannel('tcp latin1', {});
    const text = 'MSH|^~\\&|LAB|CLINIC|JUNCTION|HOSP|20240101120000||ADT^A01|LATIN-1|P|2.5||||||8859/1\rPID|1||12345^^^HOSP^MR||Béranger^Renée\r';
    const bytes = Buffer.from(text, 'latin1');
    expect(bytes.includes(0xe9)).toBe(true);
    const answer = await rawPeer(channel.tcpPort, (socket) => void socket.write(frameMllp(bytes)), 1);
    expect(answer.replies.map(msaOf)).toEqual([{ code: 'AA', controlId: 'LATIN-1' }]);
    const tx = await until('the latin1 transaction', async () => (await transactionsOf(t, channel._id))[0]);
    expect(tx.request.headers['content-type']).toBe('application/hl7-v2; charset=ISO-8859-1');
    expect(tx.request.body).toBeDefined();
    expect(tx.request.body).toMatchObject({ size: bytes.length });
    const chunks: Buffer[] = [];
    for await (const chunk of await t.junction.bodies.openRead(tx.request.body ?? { path: '' })) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    // The API shows it in its own character set, as the console then does.
    const shown = await t.request(`/transactions/${tx._id}`, { headers: admin });
    expect(shown.status).toBe(200);
    expect((shown.body as { request: { body: string } }).request.body).toBe(text);
  });
});
