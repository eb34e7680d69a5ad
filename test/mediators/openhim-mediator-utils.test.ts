/**
 * Wire compatibility with the published OpenHIM mediator client library, `openhim-mediator-utils` on npm. It is not a
 * dependency; these clients send, byte for byte in what matters, what its functions send:
 *
 * - 0.4.0 (latest, axios): registerMediator, fetchConfig and activateHeartbeat use `Authorization: Basic`, JSON with
 *   `Content-Type: application/json`, an https.Agent with `rejectUnauthorized: !trustSelfSigned`; register succeeds on
 *   any 2xx; a heartbeat body that is truthy and not "OK" (after axios's silent JSON parsing) is the configuration.
 * - 0.2.x (request): the deprecated token scheme. `GET /authenticate/<username>` gives the salt; every call then sends
 *   auth-username, auth-ts (ISO time), auth-salt (that same salt) and auth-token =
 *   sha512(sha512(salt + password) + salt + ts); register succeeds only on exactly 201, a heartbeat only on 200.
 */
import { createHash } from 'node:crypto';
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';

interface Options {
  apiURL: string;
  username: string;
  password: string;
  urn: string;
  trustSelfSigned: boolean;
}

interface Answer {
  status: number;
  text: string;
}

function send(url: string, method: string, headers: Record<string, string>, body: unknown, trustSelfSigned: boolean): Promise<Answer> {
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method,
        rejectUnauthorized: !trustSelfSigned,
        headers: { ...headers, ...(payload === undefined ? {} : { 'Content-Length': String(payload.length) }) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** axios's default response handling: a non-empty text body is JSON-parsed when it can be, silently kept otherwise. */
function axiosData(text: string): unknown {
  if (text === '') return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** What openhim-mediator-utils 0.4.0 does, call for call. */
const v040 = {
  headers(options: Options): Record<string, string> {
    return {
      Accept: 'application/json, text/plain, */*',
      'Content-Type': 'application/json',
      'User-Agent': 'axios/1.4.0',
      'Accept-Encoding': 'gzip, compress, deflate, br',
      Authorization: `Basic ${Buffer.from(`${options.username}:${options.password}`).toString('base64')}`,
    };
  },
  async registerMediator(options: Options, mediatorConfig: unknown): Promise<void> {
    const res = await send(`${options.apiURL}/mediators`, 'POST', v040.headers(options), mediatorConfig, options.trustSelfSigned);
    if (res.status < 200 || res.status >= 300) throw new Error(`Request failed with status code ${res.status}`);
  },
  async sendHeartbeat(options: Options, forceConfig: boolean): Promise<unknown> {
    const data: Record<string, unknown> = { uptime: process.uptime() };
    if (forceConfig) data.config = true;
    const res = await send(`${options.apiURL}/mediators/${options.urn}/heartbeat`, 'POST', v040.headers(options), data, options.trustSelfSigned);
    if (res.status < 200 || res.status >= 300) throw new Error(`Request failed with status code ${res.status}`);
    const body = axiosData(res.text);
    return body !== '' && body !== 'OK' && body !== null && body !== undefined ? body : forceConfig ? {} : undefined;
  },
  fetchConfig(options: Options): Promise<unknown> {
    return v040.sendHeartbeat(options, true);
  },
};

/** What openhim-mediator-utils 0.2.x does: the token scheme, with `request`'s `json: true`. */
const v02 = {
  salts: new Map<string, string>(),
  async authenticate(options: Options): Promise<void> {
    const res = await send(`${options.apiURL}/authenticate/${options.username}`, 'GET', {}, undefined, options.trustSelfSigned);
    if (res.status !== 200) throw new Error(`User ${options.username} not found when authenticating with core API`);
    v02.salts.set(options.username, (JSON.parse(res.text) as { salt: string }).salt);
  },
  headers(options: Options): Record<string, string> {
    const salt = v02.salts.get(options.username);
    if (salt === undefined) throw new Error(`${options.username} has not been authenticated`);
    const now = new Date().toISOString();
    const passhash = createHash('sha512').update(salt + options.password).digest('hex');
    const token = createHash('sha512').update(passhash + salt + now).digest('hex');
    return { accept: 'application/json', 'content-type': 'application/json', 'auth-username': options.username, 'auth-ts': now, 'auth-salt': salt, 'auth-token': token };
  },
  async registerMediator(options: Options, mediatorConfig: unknown): Promise<void> {
    await v02.authenticate(options);
    const res = await send(`${options.apiURL}/mediators`, 'POST', v02.headers(options), mediatorConfig, options.trustSelfSigned);
    if (res.status !== 201) throw new Error(`Recieved a non-201 response code, the response body was: ${res.text}`);
  },
  async fetchConfig(options: Options): Promise<unknown> {
    await v02.authenticate(options);
    const res = await send(`${options.apiURL}/mediators/${options.urn}/heartbeat`, 'POST', v02.headers(options), { uptime: process.uptime(), config: true }, options.trustSelfSigned);
    if (res.status !== 200) throw new Error(`Heartbeat unsuccessful, received status code of ${res.status}`);
    const body = axiosData(res.text);
    return body !== '' && body !== 'OK' ? body : {};
  },
  async heartbeat(options: Options): Promise<unknown> {
    const res = await send(`${options.apiURL}/mediators/${options.urn}/heartbeat`, 'POST', v02.headers(options), { uptime: process.uptime() }, options.trustSelfSigned);
    if (res.status !== 200) throw new Error(`Heartbeat unsuccessful, received status code of ${res.status}`);
    const body = axiosData(res.text);
    return body !== '' && body !== 'OK' ? body : undefined;
  },
};

/** A registration file as the OpenHIM mediator scaffold generates it (ports as text, config with a password). */
function mediatorConfig(urn: string, version: string): Record<string, unknown> {
  return {
    urn,
    version,
    name: 'Scaffold Mediator',
    description: 'A mediator generated from the OpenHIM scaffold',
    defaultChannelConfig: [
      {
        name: `Scaffold Mediator ${urn}`,
        urlPattern: '^/scaffold$',
        alerts: [],
        txRerunAcl: [],
        txViewFullAcl: [],
        txViewAcl: [],
        properties: [],
        matchContentTypes: [],
        routes: [{ name: 'Scaffold Mediator Route', host: 'localhost', port: '4000', primary: true, type: 'http' }],
        allow: ['scaffold'],
        type: 'http',
      },
    ],
    endpoints: [{ name: 'Scaffold Mediator Route', host: 'localhost', path: '/', port: '4000', primary: true, type: 'http' }],
    configDefs: [
      { param: 'upstreamUrl', displayName: 'Upstream URL', description: 'The URL of the service upstream of the mediator', type: 'string', template: [] },
      { param: 'password', displayName: 'Password', type: 'password' },
    ],
    config: { upstreamUrl: 'http://sampleApplication:7001', password: 'scaffold-pass' },
  };
}

describe('the openhim-mediator-utils client library, unchanged', () => {
  let t: TestJunction;
  let options: Options;
  let admin: { authorization: string };

  beforeAll(async () => {
    // Token auth on too, for the 0.2.x clients still in the field.
    t = await startJunction({ api: { authenticationTypes: ['basic', 'local', 'token'] } });
    admin = { authorization: await unlockRoot(t) };
    const user = { email: 'scaffold@clinic.example', firstname: 'Scaffold', surname: 'Mediator', groups: ['admin'], password: 'scaffold-password-1' };
    expect((await t.request('/users', { method: 'POST', headers: admin, json: user })).status).toBe(201);
    options = { apiURL: t.url, username: user.email, password: user.password, urn: 'urn:mediator:scaffold', trustSelfSigned: true };
  });
  afterAll(async () => t.destroy());

  it('0.4.0: registerMediator, fetchConfig and activateHeartbeat work against Junction', async () => {
    await v040.registerMediator(options, mediatorConfig(options.urn, '0.0.1'));
    expect(await v040.fetchConfig(options)).toEqual({ upstreamUrl: 'http://sampleApplication:7001', password: 'scaffold-pass' });
    // activateHeartbeat's interval: nothing new, so no 'config' event.
    expect(await v040.sendHeartbeat(options, false)).toBeUndefined();
    const changed = await t.request(`/mediators/${options.urn}/config`, { method: 'PUT', headers: admin, json: { upstreamUrl: 'http://lab:7001', password: '********' } });
    expect(changed.status).toBe(200);
    // The next interval emits 'config' with the new object, the password as stored.
    expect(await v040.sendHeartbeat(options, false)).toEqual({ upstreamUrl: 'http://lab:7001', password: 'scaffold-pass' });
    expect(await v040.sendHeartbeat(options, false)).toBeUndefined();
    // Registering the same version again at the next start succeeds and changes nothing.
    await v040.registerMediator(options, mediatorConfig(options.urn, '0.0.1'));
    expect(await v040.fetchConfig(options)).toEqual({ upstreamUrl: 'http://lab:7001', password: 'scaffold-pass' });
    const listed = (await t.request(`/mediators/${options.urn}`, { headers: admin })).body as { online: boolean; endpoints: { port: number }[] };
    expect(listed).toMatchObject({ online: true, endpoints: [{ port: 4000 }] });
  });

  it('0.4.0: a wrong password fails registration as the library reports it', async () => {
    await expect(v040.registerMediator({ ...options, password: 'wrong-password' }, mediatorConfig('urn:mediator:other', '0.0.1'))).rejects.toThrow('status code 401');
  });

  it('0.4.0: without trustSelfSigned the self-signed certificate is refused, as in OpenHIM', async () => {
    await expect(v040.registerMediator({ ...options, trustSelfSigned: false }, mediatorConfig('urn:mediator:other', '0.0.1'))).rejects.toThrow(/self[- ]signed|certificate/i);
  });

  it('0.2.x: the token scheme registers, fetches the config and heartbeats', async () => {
    const legacy = { ...options, urn: 'urn:mediator:legacy' };
    await v02.registerMediator(legacy, mediatorConfig(legacy.urn, '1.0.0'));
    expect(await v02.fetchConfig(legacy)).toEqual({ upstreamUrl: 'http://sampleApplication:7001', password: 'scaffold-pass' });
    expect(await v02.heartbeat(legacy)).toBeUndefined();
    const heartbeat = (await t.request('/heartbeat')).body as { mediators: Record<string, number | null> };
    expect(heartbeat.mediators[legacy.urn]).toBeGreaterThan(0);
  });
});
