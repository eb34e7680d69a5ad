/**
 * Issue 12 "done when": well over 1,000 malformed requests across every management route and the /ws upgrade, drawn
 * from a seeded generator. The routes and their schemas come from the running server, so a new route is covered
 * without editing this file. Every answer must be a 4xx in the one error shape, and no record may change.
 *
 * Each request is malformed on purpose in one way that no route may accept (a wrong type, bad JSON, nesting, size,
 * a bad escape, invalid UTF-8, a huge query string), on top of a base that is as valid as a schema alone can make it,
 * and aimed at records that exist, so a gap in validation shows up as a 2xx and a changed record, not a 404.
 */
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RegisteredRoute } from '../../service/api/server.js';
import { completedTransaction, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { rawRequest, upgradeRequest } from './raw-http.js';
import { storeSnapshot } from './store-snapshot.js';

const SEED = 20_240_512;
const BODY_LIMIT = 128 * 1024;
// JSON.stringify cannot write a number that parses to Infinity; this marker is replaced by 1e309 in the text.
const INFINITY = '\u0000infinity\u0000';

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  patternProperties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  items?: Schema;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
  freeForm?: unknown;
}

interface Probe {
  what: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** mulberry32: a small seeded generator, so a failure can be replayed exactly. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const json = (value: unknown): string => JSON.stringify(value).split(JSON.stringify(INFINITY)).join('1e309');

function typesOf(schema: Schema): Set<string> {
  if (schema.anyOf !== undefined) return new Set(schema.anyOf.flatMap((s) => [...typesOf(s)]));
  if (schema.enum !== undefined) return new Set(schema.enum.map((v) => (v === null ? 'null' : typeof v)));
  const types = [schema.type ?? []].flat();
  return new Set(types.flatMap((t) => (t === 'integer' ? ['number'] : [t])));
}

/** A value as valid as the schema alone can make it (patterns and cross-field rules are not attempted). */
function sample(schema: Schema): unknown {
  if (schema.anyOf !== undefined) return sample(schema.anyOf[0] ?? {});
  if (schema.enum !== undefined) return schema.enum[0];
  switch ([schema.type].flat()[0]) {
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const key of schema.required ?? []) value[key] = sample(schema.properties?.[key] ?? {});
      return value;
    }
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, (_, i) => (schema.items?.type === 'string' ? `item${i}` : sample(schema.items ?? {})));
    case 'string':
      return schema.format === 'email' ? 'fuzz@clinic.example' : 'a'.repeat(Math.max(schema.minLength ?? 1, 1));
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return true;
    default:
      return 'any';
  }
}

/** Values of a type the schema does not allow, or nothing when it allows any type. */
function wrongValues(schema: Schema): unknown[] {
  const allowed = typesOf(schema);
  if (allowed.size === 0) return [];
  const candidates: [string, unknown][] = [['number', 12.5], ['string', 'wrong'], ['boolean', true], ['array', [1, 'two']], ['object', { wrong: 1 }], ['null', null]];
  const wrong = candidates.filter(([type]) => !allowed.has(type)).map(([, value]) => value);
  if (schema.enum !== undefined) wrong.push('not-one-of-the-allowed-values');
  if (schema.type === 'integer') wrong.push(1.5);
  if (allowed.has('number')) wrong.push(INFINITY, '12');
  if (schema.type === 'string' && schema.maxLength !== undefined && schema.maxLength < 70_000) wrong.push('x'.repeat(schema.maxLength + 1));
  if (schema.type === 'array' && schema.maxItems !== undefined && schema.maxItems < 2000) {
    wrong.push(Array.from({ length: schema.maxItems + 1 }, (_, i) => (schema.items?.type === 'string' ? `i${i}` : sample(schema.items ?? {}))));
  }
  if (schema.maximum !== undefined && schema.maximum < Number.MAX_SAFE_INTEGER) wrong.push(schema.maximum + 1);
  if (schema.minimum !== undefined) wrong.push(schema.minimum - 1);
  return wrong;
}

function deepJson(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

/** The same text with invalid UTF-8 bytes put inside its first string (or at its start). */
function withInvalidUtf8(text: string, bytes: number[]): Buffer {
  const at = text.indexOf('"') + 1;
  return Buffer.concat([Buffer.from(text.slice(0, at)), Buffer.from(bytes), Buffer.from(text.slice(at))]);
}

const BAD_JSON = ['{', '{"a":}', "{'a': 1}", '{"a": 1,}', '{"a": NaN}', '{"a": undefined}', '[1, 2', '{"a" 1}', '"unterminated', 'nul', '{}{}', '\u0000'];
const BAD_UTF8 = [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]];
const PROTO = ['{"__proto__": {"isAdmin": true}}', '{"constructor": {"prototype": {"isAdmin": true}}}'];
const OTHER_TYPES = ['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'];
const BAD_PARAMS = ['%ZZ', '%', '%FF', '%C3%28', '%E2%82', 'a%2', 'x'.repeat(501)];
const BAD_QUERY_NUMBERS = ['abc', '1.5', '-1', 'Infinity', '-Infinity', '1e309', 'NaN', '1e21', ''];

/** Existing records' ids by parameter name; `id` is a transaction's or a task's depending on the route. */
type Params = (route: RegisteredRoute, name: string) => string;

function probesFor(route: RegisteredRoute, paramOf: Params, next: () => number): Probe[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const schema = route.schema as { body?: Schema; querystring?: Schema; params?: Schema };
  const path = route.url.replace(/:([A-Za-z]+)/g, (_, name: string) => paramOf(route, name));
  const probes: Probe[] = [];
  const add = (what: string, probe: Omit<Probe, 'what' | 'method'>) => probes.push({ what, method: route.method, ...probe });

  // Query strings: unknown keys, values of the wrong type, too large for the parser.
  add('an unknown query key', { path: `${path}?zz${Math.floor(next() * 1000)}=1` });
  add('a 20 KB query string', { path: `${path}?filters=${'q'.repeat(20_000)}` });
  add('20 KB of headers', { path, headers: { 'x-padding': 'h'.repeat(20_000) } });
  for (const [key, property] of Object.entries(schema.querystring?.properties ?? {})) {
    const values = typesOf(property).has('number') ? BAD_QUERY_NUMBERS : typesOf(property).has('boolean') ? ['maybe', '2', 'yes'] : [];
    if (property.enum !== undefined) values.push('bogus');
    if (property.maxLength !== undefined && property.maxLength < 12_000) values.push('x'.repeat(property.maxLength + 1));
    if (key === 'filters') values.push('{bad', '[]', '7', '{"unknownFilter":1}', deepJson(1500), '{"status":{"$where":"1"}}', '%FF');
    for (const value of values) add(`querystring.${key}=${value.slice(0, 20)}`, { path: `${path}?${key}=${encodeURIComponent(value)}` });
    add(`querystring.${key} twice`, { path: `${path}?${key}=1&${key}=2` });
    add(`querystring.${key} with bad escapes`, { path: `${path}?${key}=%ZZ%FF` });
  }

  // Path parameters: bad escapes, invalid UTF-8 once decoded, too long, outside the parameter's schema.
  const names = [...route.url.matchAll(/:([A-Za-z]+)/g)].map((m) => m[1] as string);
  for (const name of names) {
    const others = (value: string) => route.url.replace(/:([A-Za-z]+)/g, (_, n: string) => (n === name ? value : paramOf(route, n)));
    for (const value of BAD_PARAMS) add(`params.${name}=${value.slice(0, 12)}`, { path: others(value) });
    const own = schema.params?.properties?.[name];
    if (own?.maxLength !== undefined && own.maxLength < 500) add(`params.${name} too long for its schema`, { path: others('p'.repeat(own.maxLength + 1)) });
  }

  if (route.method !== 'POST' && route.method !== 'PUT') return probes;

  // Bodies that no route may accept, whether or not it declares a body schema.
  const asJson = { 'content-type': 'application/json' };
  const base = schema.body === undefined ? {} : sample(schema.body);
  for (const text of BAD_JSON) add(`bad JSON ${JSON.stringify(text)}`, { path, headers: asJson, body: text });
  for (const bytes of BAD_UTF8) add(`invalid UTF-8 ${bytes.map((b) => b.toString(16)).join(' ')}`, { path, headers: asJson, body: withInvalidUtf8(json(base), bytes) });
  for (const text of PROTO) add('a prototype-poisoning key', { path, headers: asJson, body: text });
  for (const type of OTHER_TYPES) add(`content-type ${type}`, { path, headers: { 'content-type': type }, body: 'a=1' });
  add('an empty JSON body', { path, headers: asJson, body: '' });
  add('a body over the limit', { path, headers: asJson, body: json({ big: 'b'.repeat(BODY_LIMIT + 1024) }) });
  if (schema.body === undefined) return probes;

  // Bodies that break the route's own schema: the whole body, or one field of an otherwise sampled body.
  const body = schema.body;
  for (const wrong of wrongValues(body)) add(`a body of the wrong type ${json(wrong).slice(0, 20)}`, { path, headers: asJson, body: json(wrong) });
  add('a body nested 10,000 levels deep', { path, headers: asJson, body: body.type === 'array' ? `${'['.repeat(10_000)}${']'.repeat(10_000)}` : deepJson(10_000) });
  if (body.patternProperties !== undefined) {
    // A body that is itself a map of any keys (mediator configuration): keys and values a store cannot hold.
    add('a body with a $ key', { path, headers: asJson, body: '{"$where": "1"}' });
    add('a body with a dotted key', { path, headers: asJson, body: '{"a.b": "1"}' });
    add('a body holding Infinity', { path, headers: asJson, body: '{"n": 1e309}' });
  }
  const fields = Object.entries(body.properties ?? {});
  if (typeof base !== 'object' || base === null || Array.isArray(base) || fields.length === 0) return probes;
  const withField = (key: string, value: unknown) => json({ ...base, [key]: value });
  if (body.additionalProperties === false) add('an unknown field', { path, headers: asJson, body: withField('zzUnknownField', 1) });
  for (const key of body.required ?? []) {
    const rest: Record<string, unknown> = { ...base };
    delete rest[key];
    add(`no required ${key}`, { path, headers: asJson, body: json(rest) });
  }
  for (let i = 0; i < 12; i++) {
    const [key, field] = pick(fields);
    const wrong = wrongValues(field);
    if (wrong.length > 0) add(`body.${key} of the wrong type`, { path, headers: asJson, body: withField(key, pick(wrong)) });
  }
  for (const [key, field] of fields) {
    const text = json({ ...base, [key]: '\u0000deep\u0000' }).replace(JSON.stringify('\u0000deep\u0000'), deepJson(10_000));
    if (field.freeForm !== undefined || typesOf(field).has('object') || typesOf(field).size === 0) {
      add(`body.${key} nested 10,000 levels deep`, { path, headers: asJson, body: text });
      add(`body.${key} with a $ key`, { path, headers: asJson, body: withField(key, { $where: 'sleep(1)' }) });
      add(`body.${key} with a dotted key`, { path, headers: asJson, body: withField(key, { 'a.b': 1 }) });
      add(`body.${key} holding Infinity`, { path, headers: asJson, body: withField(key, { n: INFINITY }) });
    }
    if (field.type === 'array' && field.items?.type === 'object') {
      const item = field.items;
      const [innerKey, inner] = pick(Object.entries(item.properties ?? { x: {} }));
      const innerWrong = wrongValues(inner);
      if (innerWrong.length > 0) add(`body.${key}.0.${innerKey} of the wrong type`, { path, headers: asJson, body: withField(key, [{ ...(sample(item) as object), [innerKey]: pick(innerWrong) }]) });
    }
  }
  return probes;
}

/** Malformed websocket upgrades: wrong methods, missing or wrong handshake headers, other paths, oversized heads. */
function upgradeProbes(authorization: string): { what: string; request: string }[] {
  const probes: { what: string; request: string }[] = [];
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) probes.push({ what: `a ${method} upgrade`, request: upgradeRequest({ method, authorization }) });
  const variants: [string, Record<string, string | null>][] = [
    ['no Sec-WebSocket-Key', { 'sec-websocket-key': null }],
    ['a short Sec-WebSocket-Key', { 'sec-websocket-key': 'c2hvcnQ=' }],
    ['a Sec-WebSocket-Key that is not base64', { 'sec-websocket-key': '!!!!!!!!!!!!!!!!!!!!!!!!' }],
    ['no Sec-WebSocket-Version', { 'sec-websocket-version': null }],
    ['Sec-WebSocket-Version 7', { 'sec-websocket-version': '7' }],
    ['Sec-WebSocket-Version abc', { 'sec-websocket-version': 'abc' }],
    ['Sec-WebSocket-Version 14', { 'sec-websocket-version': '14' }],
    ['Upgrade: h2c', { upgrade: 'h2c' }],
    ['a bad Sec-WebSocket-Protocol', { 'sec-websocket-protocol': 'a b,,' }],
    ['another origin', { origin: 'https://evil.example' }],
    ['an origin that is not a URL', { origin: '%%%' }],
    ['a malformed Basic header', { authorization: 'Basic !!!' }],
    ['20 KB of headers', { 'x-padding': 'w'.repeat(20_000) }],
  ];
  for (const [what, headers] of variants) probes.push({ what, request: upgradeRequest({ authorization, headers }) });
  for (const path of ['/ws/more', '/wsx', '/channels', '/%ZZ']) {
    probes.push({ what: `an upgrade to ${path}`, request: upgradeRequest({ authorization }).replace('GET /ws ', `GET ${path} `) });
  }
  probes.push({ what: 'an upgrade line that is not HTTP', request: upgradeRequest({ authorization }).replace('GET /ws HTTP/1.1', 'GET /ws HTTP/9') });
  return probes;
}

describe('1,000+ malformed requests across every management route and /ws', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  const params: Record<string, string> = {};
  let taskId = '';
  const paramOf: Params = (route, name) => (name === 'id' && route.url.startsWith('/tasks') ? taskId : (params[name] ?? 'unknown'));

  beforeAll(async () => {
    t = await startJunction({ api: { bodyLimitBytes: BODY_LIMIT } }, { consoleDir: null });
    admin = { authorization: await unlockRoot(t) };
    const created = async (path: string, body: unknown): Promise<Record<string, unknown>> => {
      const res = await t.request(path, { method: 'POST', headers: admin, json: body });
      if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
      return res.body as Record<string, unknown>;
    };
    // Records every parameter can point at, so a request that slipped through validation would change one.
    const user = await created('/users', { email: 'dan@clinic.example', firstname: 'Dan', surname: 'D', groups: ['doctors'], password: 'dan-password-12' });
    const channel = await created('/channels', { name: 'lab', urlPattern: '^/lab$', authType: 'public', routes: [{ name: 'down', host: '127.0.0.1', port: 1, primary: true }] });
    const client = await created('/clients', { clientID: 'lab-system', name: 'Lab', clientDomain: 'lab.clinic.example', roles: ['lab'], password: 'lab-password-12' });
    await created('/roles', { name: 'nurses', channels: [{ _id: channel._id }] });
    const mediator = await created('/mediators', { urn: 'urn:mediator:fuzz', version: '1.0.0', name: 'Fuzz', endpoints: [{ name: 'e', host: '127.0.0.1', port: 1, primary: true }] });
    const answer = await fetch(`${t.httpUrl}/lab`);
    await answer.arrayBuffer();
    const tx = await completedTransaction(t, answer.headers.get('x-openhim-transactionid'));
    const task = await created('/tasks', { tids: [tx._id], paused: true });
    Object.assign(params, {
      email: String(user.email),
      username: String(user.email),
      channelId: String(channel._id),
      clientId: String(client._id),
      clientDomain: 'lab.clinic.example',
      name: 'nurses',
      urn: String(mediator.urn),
      id: tx._id,
    });
    taskId = String(task._id);
  });
  afterAll(async () => t.destroy());

  it('answers every one with a 4xx in the one error shape and changes no record', async () => {
    const next = random(SEED);
    const routes = t.junction.apiRoutes.filter((r) => r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(30);
    const probes = routes.flatMap((route) => probesFor(route, paramOf, next));
    // A few with credentials that cannot be read: the auth hook's refusal must be in the shape too.
    for (let i = 0; i < 10; i++) {
      const probe = probes[Math.floor(next() * probes.length)] as Probe;
      probes.push({ ...probe, what: `${probe.what}, with a malformed Basic header`, headers: { ...probe.headers, authorization: 'Basic !!!' } });
    }
    const upgrades = upgradeProbes(admin.authorization);
    expect(probes.length + upgrades.length).toBeGreaterThanOrEqual(1000);

    const before = await storeSnapshot(t);
    const failures: string[] = [];
    const check = (what: string, status: number, body: unknown) => {
      const error = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
      if (status < 400 || status >= 500 || typeof error?.code !== 'string' || typeof error.message !== 'string') {
        failures.push(`${what}: ${status} ${JSON.stringify(body)?.slice(0, 200) ?? '(no JSON body)'}`);
      }
    };
    // A few at a time: enough to finish quickly on two cores, few enough to keep every answer's order irrelevant.
    let index = 0;
    const worker = async () => {
      for (let probe = probes[index++]; probe !== undefined; probe = probes[index++]) {
        const { what, method, path, headers, body } = probe;
        const res = await t.request(path, { method, headers: { authorization: admin.authorization, ...headers }, ...(body === undefined ? {} : { body }) });
        check(`${method} ${path.slice(0, 80)} (${what})`, res.status, res.body);
      }
    };
    await Promise.all(Array.from({ length: 4 }, worker));
    for (const { what, request } of upgrades) {
      const res = await rawRequest(t, request);
      check(`/ws upgrade (${what})`, res.status, res.body);
    }

    expect(failures).toEqual([]);
    expect(await storeSnapshot(t)).toBe(before);
    expect(t.logs.filter((line) => (line.level as number) >= 50).map((line) => line.msg)).toEqual([]);
    // Over a thousand requests, more with every route added: its time grows with the API, not with a fault.
  }, 180_000);
});
