/**
 * Issue 20: the manual's example nginx configuration (docs/scale-out/nginx.conf), run by the real nginx in front of
 * two Junction instances on one PostgreSQL database. The file is rendered to this test's ports and folders and
 * nothing else, so what passes here is what the scale-out page (docs/operations/scale-out.md) shows.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent, fetch } from 'undici';
import { WebSocket } from 'ws';
import type { ClientOptions } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveFrame } from '../../service/contracts/live-feed.js';
import { generateCertificate } from '../../service/keystore/generate.js';
import { NEW_ROOT_PASSWORD, ROOT_EMAIL, startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { createTestDatabase } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { freePort, freePorts } from '../helpers/process.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';
import { hl7Upstream } from '../messages/hl7-peers.js';
import type { Hl7Upstream } from '../messages/hl7-peers.js';
import { adt, hl7Send, msaOf } from '../transports/fixtures.js';

const EXAMPLE = join(import.meta.dirname, '../../docs/scale-out/nginx.conf');
const SCALE_OUT_PAGE = join(import.meta.dirname, '../../docs/operations/scale-out.md');

/** Replaces each `from` with its `to`, failing if the example no longer contains one (a substitution must not miss). */
function rendered(text: string, substitutions: [from: string, to: string][]): string {
  let out = text;
  for (const [from, to] of substitutions) {
    expect(out, `the example contains ${from}`).toContain(from);
    out = out.replaceAll(from, to);
  }
  return out;
}

/** Resolves once something accepts TCP connections on 127.0.0.1:port (nginx gives no other sign of being ready). */
function accepts(port: number): Promise<true | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(undefined));
  });
}

/** The sum of a Prometheus counter's samples for one channel, from the instance's own `GET /metrics`. */
async function counted(t: TestJunction, admin: string, channel: string): Promise<number> {
  const res = await t.inject('/metrics', { headers: { authorization: admin, accept: 'application/openmetrics-text' } });
  expect(res.status).toBe(200);
  let sum = 0;
  for (const line of res.text.split('\n')) {
    if (line.startsWith('openhim_transactions_total{') && line.includes(`channel="${channel}"`)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

describe('the example nginx configuration in front of two instances on one PostgreSQL', () => {
  let db: TestDatabase;
  let dir: string;
  let upstream: Upstream;
  let lab: Hl7Upstream;
  let nginx: ChildProcess | undefined;
  let nginxExited: Promise<void> | undefined;
  let nginxOutput = '';
  const instances: TestJunction[] = [];
  let admin: string;
  let ports: { api: number; http: number; https: number; mllp: number };
  let mllpChannelPort: number;
  let siteCa: string;
  let viaNginx: Agent;
  let toJunction: Agent;
  let cookie = '';

  const api = async (path: string, init: { method?: string; json?: unknown } = {}) => {
    const res = await fetch(`https://127.0.0.1:${ports.api}${path}`, {
      method: init.method ?? 'GET',
      headers: { ...(cookie === '' ? {} : { cookie }), ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
      dispatcher: viaNginx,
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text.startsWith('{') || text.startsWith('[') ? (JSON.parse(text) as unknown) : undefined };
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    dir = await tempDir('junction-nginx-');
    upstream = await httpUpstream((req, res) => {
      void readBody(req).then((body) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`upstream saw ${req.url ?? ''} ${body.length}`);
      });
    });
    lab = await hl7Upstream();
    for (let i = 0; i < 2; i++) {
      instances.push(await startJunction({ storage: { engine: 'postgres', postgres: { url: db.url, poolSize: 4 } }, keystore: { secretFile: join(dir, 'keystore.secret') } }));
    }
    const [a, b] = instances;
    admin = await unlockRoot(a!);
    // One keystore, so one server certificate for nginx to check on every instance.
    expect(b!.certificate).toBe(a!.certificate);

    const site = generateCertificate({ type: 'server', commonName: 'localhost', days: 30 });
    await mkdir(join(dir, 'tls'));
    await mkdir(join(dir, 'logs'));
    await writeFile(join(dir, 'tls', 'site.crt'), site.certificate);
    await writeFile(join(dir, 'tls', 'site.key'), site.key);
    await writeFile(join(dir, 'tls', 'junction-server.crt'), a!.certificate);
    siteCa = site.certificate;
    viaNginx = new Agent({ connect: { ca: site.certificate, servername: 'localhost' } });
    toJunction = new Agent({ connect: { ca: a!.certificate, servername: 'localhost' } });

    const [api, http, https, mllp] = await freePorts(4);
    ports = { api: api!, http: http!, https: https!, mllp: mllp! };
    mllpChannelPort = await freePort();
    const hostOf = (url: string) => new URL(url).host;
    const config = rendered(await readFile(EXAMPLE, 'utf8'), [
      ['junction-1.internal:8080', hostOf(a!.url)],
      ['junction-2.internal:8080', hostOf(b!.url)],
      ['junction-1.internal:5001', hostOf(a!.httpUrl)],
      ['junction-2.internal:5001', hostOf(b!.httpUrl)],
      ['junction-1.internal:5000', hostOf(a!.httpsUrl)],
      ['junction-2.internal:5000', hostOf(b!.httpsUrl)],
      // One machine: the channel's port can be bound by one instance only, so both lines reach that one.
      ['junction-1.internal:2575', `127.0.0.1:${mllpChannelPort}`],
      ['junction-2.internal:2575', `127.0.0.1:${mllpChannelPort}`],
      ['listen 8080', `listen 127.0.0.1:${ports.api}`],
      ['listen 5001', `listen 127.0.0.1:${ports.http}`],
      ['listen 5000', `listen 127.0.0.1:${ports.https}`],
      ['listen 2575', `listen 127.0.0.1:${ports.mllp}`],
      ['/etc/nginx/junction/', `${join(dir, 'tls')}/`],
      ['/var/log/nginx/', `${join(dir, 'logs')}/`],
    ]);
    await writeFile(join(dir, 'nginx.conf'), config);
    const child = spawn('nginx', ['-p', dir, '-c', join(dir, 'nginx.conf'), '-g', `daemon off; pid ${join(dir, 'nginx.pid')}; error_log stderr warn;`], { stdio: ['ignore', 'pipe', 'pipe'] });
    nginx = child;
    child.stdout.on('data', (chunk: Buffer) => (nginxOutput += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (nginxOutput += chunk.toString()));
    nginxExited = new Promise((resolve) => child.once('exit', () => resolve()));
    let exited = false;
    void nginxExited.then(() => (exited = true));
    // nginx opens every listening socket before it serves any. Only the API's is probed: a probe of the MLLP port
    // would reach for an upstream that has no channel yet, and nginx would count that instance as down for 10 s.
    await until('nginx to listen', async () => {
      if (exited) throw new Error(`nginx exited: ${nginxOutput}`);
      return accepts(ports.api);
    });
  });

  afterAll(async () => {
    if (nginx !== undefined && nginx.exitCode === null) {
      nginx.kill('SIGQUIT');
      await nginxExited;
    }
    await viaNginx?.close();
    await toJunction?.close();
    for (const t of instances.splice(0)) await t.destroy();
    await upstream?.close();
    await lab?.close();
    await db?.drop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('is the file the scale-out page shows', async () => {
    const page = await readFile(SCALE_OUT_PAGE, 'utf8');
    expect(page).toContain(`\`\`\`nginx\n${await readFile(EXAMPLE, 'utf8')}\`\`\``);
  });

  it('signs in once and keeps the session on both instances, with no sticky sessions', async () => {
    const login = await api('/authenticate/local', { method: 'POST', json: { username: ROOT_EMAIL, password: NEW_ROOT_PASSWORD } });
    expect(login.status, login.text).toBe(200);
    cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(cookie).toMatch(/^junction\.sid=/);
    // Each answer names the instance that gave it; round robin alternates, so both serve the one session.
    const answeredBy = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const about = await api('/about');
      expect(about.status, about.text).toBe(200);
      const storage = (about.body as { storage: { engine: string; instances: { apiUrl: string; self: boolean }[] } }).storage;
      expect(storage.engine).toBe('postgres');
      expect(storage.instances.map((i) => i.apiUrl).sort()).toEqual(instances.map((t) => t.url).sort());
      answeredBy.add(storage.instances.find((i) => i.self)!.apiUrl);
    }
    expect([...answeredBy].sort()).toEqual(instances.map((t) => t.url).sort());
  });

  it('balances transactions on the HTTP port over both instances and passes HTTPS through to Junction', async () => {
    const created = await api('/channels', {
      method: 'POST',
      json: { name: 'Balanced', urlPattern: '^/balanced/.*$', authType: 'public', methods: ['POST'], routes: [{ name: 'up', host: '127.0.0.1', port: upstream.port, primary: true }] },
    });
    expect(created.status, created.text).toBe(201);
    let answered = 0;
    const send = async (base: string, dispatcher?: Agent) => {
      const res = await fetch(`${base}/balanced/one`, { method: 'POST', body: 'x'.repeat(100), ...(dispatcher === undefined ? {} : { dispatcher }) });
      const text = await res.text();
      if (res.status !== 200) return undefined;
      answered++;
      return text;
    };
    // Both instances know the channel once two answers in a row come back (the other learns of it by notice).
    await until('the channel on both instances', async () => ((await send(`http://127.0.0.1:${ports.http}`)) !== undefined && (await send(`http://127.0.0.1:${ports.http}`)) !== undefined ? true : undefined));
    for (let i = 0; i < 8; i++) expect(await send(`http://127.0.0.1:${ports.http}`)).toBe('upstream saw /balanced/one 100');
    // HTTPS is passed through: the client checks Junction's own certificate, not the site's.
    expect(await send(`https://127.0.0.1:${ports.https}`, toJunction)).toBe('upstream saw /balanced/one 100');
    expect(await send(`https://127.0.0.1:${ports.https}`, toJunction)).toBe('upstream saw /balanced/one 100');

    // Prometheus counts per instance: each counted some, and together every answered transaction once.
    const [a, b] = instances;
    const counts = await until('every answered transaction counted', async () => {
      const both = [await counted(a!, admin, 'Balanced'), await counted(b!, admin, 'Balanced')];
      return both[0]! + both[1]! === answered ? both : undefined;
    });
    expect(counts[0]).toBeGreaterThan(0);
    expect(counts[1]).toBeGreaterThan(0);
  });

  it('carries the live feed websocket (/ws), which shows transactions handled by either instance', async () => {
    // As a browser on the balancer's address opens it: the session cookie and the page's Origin.
    // servername reaches tls.connect (the site certificate names localhost), though ws's options type leaves it out.
    const options: ClientOptions & { servername: string } = { ca: siteCa, servername: 'localhost', headers: { cookie }, origin: `https://127.0.0.1:${ports.api}` };
    const ws = new WebSocket(`wss://127.0.0.1:${ports.api}/ws`, options);
    const frames: LiveFrame[] = [];
    let refused: string | undefined;
    ws.once('unexpected-response', (_req, res) => (refused = `refused with ${res.statusCode ?? 0}`));
    ws.once('error', (err) => (refused = err.message));
    ws.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString('utf8')) as LiveFrame));
    const seen = (what: string, match: (f: LiveFrame) => boolean) =>
      until(what, () => {
        if (refused !== undefined) throw new Error(`the websocket was ${refused}`);
        return frames.some(match) ? true : undefined;
      });
    try {
      await seen('the hello frame', (f) => f.type === 'hello');
      // One transaction sent to each instance directly: the feed, held by one of them, shows both.
      const [a, b] = instances;
      for (const [t, path] of [[a!, '/balanced/feed-a'], [b!, '/balanced/feed-b']] as const) {
        const res = await fetch(`${t.httpUrl}${path}`, { method: 'POST', body: 'x' });
        expect(res.status).toBe(200);
        await res.text();
      }
      for (const path of ['/balanced/feed-a', '/balanced/feed-b']) await seen(`${path} completed`, (f) => f.type === 'transaction.completed' && f.data.path === path);
    } finally {
      ws.close();
    }
  });

  it('passes MLLP through its stream to the instance listening on the channel port', async () => {
    const created = await api('/channels', {
      method: 'POST',
      json: { name: 'Lab HL7', type: 'tcp', tcpHost: '127.0.0.1', tcpPort: mllpChannelPort, authType: 'public', routes: [{ name: 'lab system', type: 'mllp', host: '127.0.0.1', port: lab.port, primary: true }] },
    });
    expect(created.status, created.text).toBe(201);
    await until('the channel port bound by an instance', () => accepts(mllpChannelPort));
    const acks = await hl7Send(ports.mllp, [adt('LB-1'), adt('LB-2')]);
    expect(acks.map((ack) => msaOf(ack))).toEqual([
      { code: 'AA', controlId: 'LB-1' },
      { code: 'AA', controlId: 'LB-2' },
    ]);
    expect(lab.received.map((m) => m.split('\r')[0]!.split('|')[9])).toEqual(['LB-1', 'LB-2']);
  });
});
