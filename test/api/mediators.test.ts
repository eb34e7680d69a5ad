import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction, TestResponse } from '../helpers/junction.js';

interface Mediator {
  urn: string;
  version: string;
  name: string;
  online: boolean;
  config: Record<string, unknown>;
  endpoints: { password?: string; port: number; primary?: boolean }[];
  defaultChannelConfig: { name: string; routes: { password?: string }[] }[];
  installedChannels: { name: string; channelId: string }[];
  _uptime?: number;
  _lastHeartbeat?: string;
}

const endpoint = { name: 'lab endpoint', host: '127.0.0.1', port: 7001, primary: true };

const configDefs = [
  { param: 'title', type: 'string' },
  { param: 'template', type: 'bigstring' },
  { param: 'enabled', type: 'bool' },
  { param: 'limit', type: 'number' },
  { param: 'mode', type: 'option', values: ['fast', 'safe'] },
  { param: 'codes', type: 'map' },
  {
    param: 'server',
    type: 'struct',
    template: [
      { param: 'host', type: 'string' },
      { param: 'port', type: 'number' },
      { param: 'secret', type: 'password' },
    ],
  },
  { param: 'apiKey', type: 'password' },
  { param: 'keys', type: 'password', array: true },
  { param: 'tags', type: 'string', array: true },
  { param: 'servers', type: 'struct', array: true, template: [{ param: 'name', type: 'string' }, { param: 'token', type: 'password' }] },
];

const config = {
  title: 'Lab',
  template: 'long\ntext',
  enabled: true,
  limit: 2.5,
  mode: 'safe',
  codes: { a: '1', b: '2' },
  server: { host: 'lab.local', port: 443, secret: 'struct-secret' },
  apiKey: 'api-key-secret',
  keys: ['k1-secret', 'k2-secret'],
  tags: ['x', 'y'],
  servers: [{ name: 'one', token: 'token-one' }],
};

function registration(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    urn: 'urn:mediator:lab',
    version: '1.0.0',
    name: 'Lab mediator',
    endpoints: [{ ...endpoint, username: 'lab', password: 'endpoint-secret' }],
    defaultChannelConfig: [
      { name: 'Lab orders', urlPattern: '^/lab/orders$', authType: 'public', description: 'v1', routes: [{ ...endpoint, path: '/orders' }] },
      { name: 'Lab results', urlPattern: '^/lab/results$', routes: [{ ...endpoint, path: '/results', password: 'route-secret' , username: 'r' }] },
    ],
    configDefs,
    config,
    ...extra,
  };
}

const SECRETS = ['endpoint-secret', 'route-secret', 'struct-secret', 'api-key-secret', 'k1-secret', 'k2-secret', 'token-one'];
const revealed = (text: string) => SECRETS.filter((secret) => text.includes(secret));

const MASKED = {
  title: 'Lab',
  server: { host: 'lab.local', port: 443, secret: '********' },
  apiKey: '********',
  keys: ['********', '********'],
  servers: [{ name: 'one', token: '********' }],
};

describe('mediators API', () => {
  let t: TestJunction;
  let skewMs = 0;
  let admin: { authorization: string };
  let nurse: { authorization: string };

  const path = (urn: string, rest = '') => `/mediators/${encodeURIComponent(urn)}${rest}`;
  const register = (json: unknown, headers = admin) => t.inject('/mediators', { method: 'POST', headers, json });
  const get = async (urn = 'urn:mediator:lab') => (await t.inject(path(urn), { headers: admin })).body as Mediator;
  const heartbeat = (urn: string, json: unknown, headers = admin) => t.inject(path(urn, '/heartbeat'), { method: 'POST', headers, json });
  const problem = (res: TestResponse) => {
    const body = res.body as { error: { code: string; message: string; details: { path: string }[] | null } };
    return { status: res.status, code: body.error.code, paths: (body.error.details ?? []).map((d) => d.path), message: body.error.message };
  };

  beforeAll(async () => {
    // The registry's clock runs ahead when a test needs time to pass, rather than the test sleeping.
    t = await startJunction({ mediators: { offlineAfterSeconds: 1 } }, { clock: () => Date.now() + skewMs });
    admin = { authorization: await unlockRoot(t) };
    const user = { email: 'nina@clinic.example', firstname: 'Nina', surname: 'Nurse', groups: ['nurses'], password: 'nina-password-12' };
    expect((await t.inject('/users', { method: 'POST', headers: admin, json: user })).status).toBe(201);
    nurse = { authorization: basic(user.email, user.password) };
  });
  afterAll(async () => t.destroy());

  describe('registration documents', () => {
    const bad: { name: string; doc: Record<string, unknown>; path: string }[] = [
      { name: 'no urn', doc: registration({ urn: undefined }), path: 'body.urn' },
      { name: 'a urn with a slash', doc: registration({ urn: 'urn/with/slash' }), path: 'body.urn' },
      { name: 'no name', doc: registration({ name: undefined }), path: 'body.name' },
      { name: 'a version that is not semver', doc: registration({ version: 'one' }), path: 'body.version' },
      { name: 'a partial version', doc: registration({ version: '1.0' }), path: 'body.version' },
      { name: 'no endpoints for a new mediator', doc: registration({ endpoints: [] }), path: 'body.endpoints' },
      { name: 'an endpoint without a port', doc: registration({ endpoints: [{ name: 'x', host: 'h' }] }), path: 'body.endpoints.0.port' },
      { name: 'an unknown config type', doc: registration({ configDefs: [{ param: 'a', type: 'colour' }], config: {} }), path: 'body.configDefs.0.type' },
      { name: 'an option without values', doc: registration({ configDefs: [{ param: 'a', type: 'option' }], config: {} }), path: 'body.configDefs.0.values' },
      { name: 'a struct without a template', doc: registration({ configDefs: [{ param: 's', type: 'struct' }], config: {} }), path: 'body.configDefs.0.template' },
      {
        name: 'a nested struct',
        doc: registration({ configDefs: [{ param: 's', type: 'struct', template: [{ param: 'inner', type: 'struct' }] }], config: {} }),
        path: 'body.configDefs.0.template.0.type',
      },
      {
        name: 'a template inside a template',
        doc: registration({ configDefs: [{ param: 's', type: 'struct', template: [{ param: 'i', type: 'string', template: [] }] }], config: {} }),
        path: 'body.configDefs.0.template.0.template',
      },
      { name: 'a repeated param', doc: registration({ configDefs: [{ param: 'a', type: 'string' }, { param: 'a', type: 'bool' }], config: {} }), path: 'body.configDefs.1.param' },
      { name: 'a param with a dot', doc: registration({ configDefs: [{ param: 'a.b', type: 'string' }], config: {} }), path: 'body.configDefs.0.param' },
      { name: 'a config value without a definition', doc: registration({ config: { ...config, extra: 1 } }), path: 'body.config.extra' },
      { name: 'a string for a bool', doc: registration({ config: { ...config, enabled: 'yes' } }), path: 'body.config.enabled' },
      { name: 'text for a number', doc: registration({ config: { ...config, limit: '3' } }), path: 'body.config.limit' },
      { name: 'an option outside its values', doc: registration({ config: { ...config, mode: 'slow' } }), path: 'body.config.mode' },
      { name: 'a map with a number value', doc: registration({ config: { ...config, codes: { a: 1 } } }), path: 'body.config.codes.a' },
      { name: 'a struct field not in the template', doc: registration({ config: { ...config, server: { host: 'h', colour: 'red' } } }), path: 'body.config.server.colour' },
      { name: 'a struct field of the wrong type', doc: registration({ config: { ...config, server: { port: 'x' } } }), path: 'body.config.server.port' },
      { name: 'a single value for an array', doc: registration({ config: { ...config, tags: 'x' } }), path: 'body.config.tags' },
      { name: 'a wrong item in an array', doc: registration({ config: { ...config, tags: ['x', 2] } }), path: 'body.config.tags.1' },
      {
        name: 'a default channel with two primary routes',
        doc: registration({ defaultChannelConfig: [{ name: 'c', urlPattern: '^/c$', routes: [endpoint, { ...endpoint, name: 'second' }] }] }),
        path: 'body.defaultChannelConfig.0.routes',
      },
      {
        name: 'a default channel with a bad regex',
        doc: registration({ defaultChannelConfig: [{ name: 'c', urlPattern: '(', routes: [endpoint] }] }),
        path: 'body.defaultChannelConfig.0.urlPattern',
      },
      {
        name: 'two default channels with one name',
        doc: registration({ defaultChannelConfig: [{ name: 'c', urlPattern: '^/c$', routes: [endpoint] }, { name: 'c', urlPattern: '^/d$', routes: [endpoint] }] }),
        path: 'body.defaultChannelConfig.1.name',
      },
      { name: 'an unknown field', doc: registration({ colour: 'red' }), path: 'body.colour' },
    ];

    for (const c of bad) {
      it(`refuses ${c.name} with a 400 naming ${c.path}, writing nothing`, async () => {
        const res = await register(c.doc);
        expect(problem(res)).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
        expect(problem(res).paths).toContain(c.path);
        expect(problem(res).message).toContain(c.path);
        expect(await t.junction.store.mediators.count({})).toBe(0);
      });
    }

    it('refuses a body that is not JSON or not an object', async () => {
      expect((await t.inject('/mediators', { method: 'POST', headers: { ...admin, 'content-type': 'application/json' }, body: '{"urn":' })).status).toBe(400);
      expect(problem(await register([]))).toMatchObject({ status: 400, paths: ['body'] });
    });
  });

  it('lets only admins use the mediator routes', async () => {
    expect((await t.inject('/mediators')).status).toBe(401);
    const refused = await register(registration(), nurse);
    expect(problem(refused)).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect((await t.inject('/mediators', { headers: nurse })).status).toBe(403);
    expect((await heartbeat('urn:mediator:lab', { uptime: 1 }, nurse)).status).toBe(403);
    expect(await t.junction.store.mediators.count({})).toBe(0);
  });

  it('registers a mediator with every config type, masking passwords in every answer but the heartbeat', async () => {
    const created = await register(registration());
    expect(created.status).toBe(201);
    const answer = created.body as Mediator;
    expect(answer).toMatchObject({ urn: 'urn:mediator:lab', version: '1.0.0', online: false, config: MASKED, installedChannels: [] });
    expect(answer.endpoints[0]?.password).toBe('********');
    expect(answer.defaultChannelConfig[1]?.routes[0]?.password).toBe('********');
    expect(revealed(created.text)).toEqual([]);

    const list = await t.inject('/mediators', { headers: admin });
    expect(list.status).toBe(200);
    expect((list.body as Mediator[]).map((m) => m.urn)).toEqual(['urn:mediator:lab']);
    // OpenHIM's list route forgets to mask (COMPAT.md); Junction does not.
    expect(revealed(list.text)).toEqual([]);
    expect((await get()).config).toMatchObject(MASKED);
    expect((await t.inject(path('urn:mediator:unknown'), { headers: admin })).status).toBe(404);

    // The heartbeat is the one answer with the real values: the mediator needs them.
    const fetched = await heartbeat('urn:mediator:lab', { uptime: 12.5, config: true });
    expect(fetched.status).toBe(200);
    expect(fetched.body).toEqual(config);
  });

  it('accepts ports and flags given as text, as OpenHIM registration files have them', async () => {
    const res = await register({
      urn: 'urn:mediator:text-ports',
      version: '0.1.0',
      name: 'Text ports',
      endpoints: [{ name: 'e', host: 'localhost', port: '4000', primary: 'true', type: 'http' }],
      defaultChannelConfig: [{ name: 'Text ports channel', urlPattern: '^/tp$', routes: [{ name: 'r', host: 'localhost', port: '4000', primary: 'true' }] }],
    });
    expect(res.status).toBe(201);
    expect((res.body as Mediator).endpoints[0]).toMatchObject({ port: 4000, primary: true });
    expect((await t.inject(path('urn:mediator:text-ports'), { method: 'DELETE', headers: admin })).status).toBe(200);
  });

  describe('heartbeats', () => {
    it('answers 404 for an unknown urn and 400 without an uptime', async () => {
      expect(problem(await heartbeat('urn:mediator:nobody', { uptime: 1 }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
      expect(problem(await heartbeat('urn:mediator:lab', {}))).toMatchObject({ status: 400, paths: ['body.uptime'] });
      expect(problem(await heartbeat('urn:mediator:lab', { uptime: 'long' }))).toMatchObject({ status: 400, paths: ['body.uptime'] });
      expect(problem(await heartbeat('urn:mediator:lab', { uptime: -1 }))).toMatchObject({ status: 400, paths: ['body.uptime'] });
    });

    it('answers with an empty body when nothing changed, and records uptime and online status', async () => {
      const res = await heartbeat('urn:mediator:lab', { uptime: 20 });
      expect(res.status).toBe(200);
      expect(res.text).toBe('');
      expect(await get()).toMatchObject({ online: true, _uptime: 20 });
      const service = (await t.inject('/heartbeat')).body as { mediators: Record<string, number | null> };
      expect(service.mediators).toEqual({ 'urn:mediator:lab': 20 });
    });

    it('shows a mediator offline once it stops sending heartbeats', async () => {
      await heartbeat('urn:mediator:lab', { uptime: 21 });
      skewMs += 1100;
      expect((await get()).online).toBe(false);
      expect(((await t.inject('/heartbeat')).body as { mediators: Record<string, number | null> }).mediators['urn:mediator:lab']).toBeNull();
      await heartbeat('urn:mediator:lab', { uptime: 22 });
      expect((await get()).online).toBe(true);
    });
  });

  describe('configuration', () => {
    const put = (json: unknown) => t.inject(path('urn:mediator:lab', '/config'), { method: 'PUT', headers: admin, json });

    it('validates against configDefs, naming the field', async () => {
      expect(problem(await put({ ...MASKED, limit: 'many' }))).toMatchObject({ status: 400, paths: ['body.limit'] });
      expect(problem(await put({ nope: 1 }))).toMatchObject({ status: 400, paths: ['body.nope'] });
      expect(problem(await put([]))).toMatchObject({ status: 400, paths: ['body'] });
      expect((await t.inject(path('urn:mediator:nobody', '/config'), { method: 'PUT', headers: admin, json: {} })).status).toBe(404);
      expect((await t.inject(path('urn:mediator:lab', '/config'), { method: 'PUT', headers: nurse, json: {} })).status).toBe(403);
    });

    it('keeps stored passwords where the mask is sent back, and sends the change with the next heartbeat only', async () => {
      const current = (await get()).config;
      const res = await put({ ...current, title: 'Lab 2', keys: ['********', 'k3-new'], servers: [...(current.servers as object[]), { name: 'two', token: 'token-two' }] });
      expect(res.status).toBe(200);
      expect((res.body as Mediator).config).toMatchObject({ title: 'Lab 2', apiKey: '********', keys: ['********', '********'] });
      const next = await heartbeat('urn:mediator:lab', { uptime: 30 });
      expect(next.body).toEqual({
        ...config,
        title: 'Lab 2',
        keys: ['k1-secret', 'k3-new'],
        servers: [{ name: 'one', token: 'token-one' }, { name: 'two', token: 'token-two' }],
      });
      expect((await heartbeat('urn:mediator:lab', { uptime: 31 })).text).toBe('');
    });

    it('refuses the mask where no password is stored', async () => {
      const current = (await get()).config;
      const res = await put({ ...current, keys: ['********', '********', '********'] });
      expect(problem(res)).toMatchObject({ status: 400, paths: ['body.keys.2'] });
    });
  });

  describe('default channels', () => {
    const install = (json: unknown, urn = 'urn:mediator:lab') => t.inject(path(urn, '/channels'), { method: 'POST', headers: admin, json });

    it('refuses unknown names (naming the list entry) and installs the named ones through the channel rules', async () => {
      expect(problem(await install(['Lab orders', 'Lab nonsense']))).toMatchObject({ status: 400, paths: ['body.1'] });
      expect(problem(await install('Lab orders'))).toMatchObject({ status: 400, paths: ['body'] });
      expect(await t.junction.store.channels.count({})).toBe(0);
      const res = await install(['Lab orders']);
      expect(res.status).toBe(201);
      const [channel] = res.body as { _id: string; name: string; type: string; status: string; routes: { path: string; primary: boolean }[] }[];
      expect(channel).toMatchObject({ name: 'Lab orders', type: 'http', status: 'enabled', routes: [{ path: '/orders', primary: true }] });
      expect((await get()).installedChannels).toEqual([{ name: 'Lab orders', channelId: channel?._id }]);
      expect(problem(await install(['Lab orders']))).toMatchObject({ status: 409, code: 'CONFLICT' });
      expect((await t.inject(path('urn:mediator:nobody', '/channels'), { method: 'POST', headers: admin, json: [] })).status).toBe(404);
    });

    it('installs every default with an empty list, masking route passwords in the answer', async () => {
      await t.inject(`/channels/${(await get()).installedChannels[0]?.channelId ?? ''}`, { method: 'DELETE', headers: admin });
      const res = await install([]);
      expect(res.status).toBe(201);
      expect((res.body as { name: string }[]).map((c) => c.name)).toEqual(['Lab orders', 'Lab results']);
      expect(revealed(res.text)).toEqual([]);
      expect((await get()).installedChannels.map((c) => c.name)).toEqual(['Lab orders', 'Lab results']);
    });
  });

  describe('registering again', () => {
    it('changes nothing for an equal or lower version', async () => {
      const before = await get();
      for (const version of ['1.0.0', '0.9.9']) {
        const res = await register(registration({ version, name: 'Renamed', configDefs: [], config: {} }));
        expect(res.status).toBe(201);
        expect((res.body as Mediator).version).toBe('1.0.0');
      }
      const after = await get();
      expect(after.name).toBe(before.name);
      expect(after.config).toEqual(before.config);
    });

    it('on a higher version replaces the registration, keeps configured values and updates installed channels', async () => {
      const ordersId = (await get()).installedChannels.find((c) => c.name === 'Lab orders')?.channelId ?? '';
      // An admin's own addition to the installed channel survives the upgrade, since the default does not set it.
      expect((await t.inject(`/channels/${ordersId}`, { method: 'PUT', headers: admin, json: { txViewAcl: ['nurses'] } })).status).toBe(200);
      const defs = [
        { param: 'title', type: 'string' },
        { param: 'limit', type: 'string' },
        { param: 'apiKey', type: 'password' },
        { param: 'colour', type: 'option', values: ['red', 'blue'] },
      ];
      const res = await register(
        registration({
          version: '1.1.0',
          name: 'Lab mediator 1.1',
          endpoints: undefined,
          configDefs: defs,
          config: { title: 'Default', limit: 'ten', apiKey: 'new-default', colour: 'red' },
          defaultChannelConfig: [{ name: 'Lab orders', urlPattern: '^/lab/orders/v2$', description: 'v2', authType: 'public', routes: [{ ...endpoint, path: '/v2/orders' }] }],
        }),
      );
      expect(res.status).toBe(201);
      const upgraded = await get();
      // title and apiKey keep their configured values; limit changed type so takes the new default; the rest is dropped.
      expect(upgraded).toMatchObject({ version: '1.1.0', name: 'Lab mediator 1.1', config: { title: 'Lab 2', limit: 'ten', apiKey: '********', colour: 'red' } });
      expect(Object.keys(upgraded.config).sort()).toEqual(['apiKey', 'colour', 'limit', 'title']);
      expect(upgraded.endpoints).toHaveLength(1);
      expect((await heartbeat('urn:mediator:lab', { uptime: 40 })).body).toEqual({ title: 'Lab 2', limit: 'ten', apiKey: 'api-key-secret', colour: 'red' });

      const orders = (await t.inject(`/channels/${ordersId}`, { headers: admin })).body as Record<string, unknown>;
      expect(orders).toMatchObject({ name: 'Lab orders', urlPattern: '^/lab/orders/v2$', description: 'v2', txViewAcl: ['nurses'], routes: [{ path: '/v2/orders' }] });
    });

    it('can be deleted, leaving its installed channels', async () => {
      const channels = await t.junction.store.channels.count({});
      expect((await t.inject(path('urn:mediator:lab'), { method: 'DELETE', headers: nurse })).status).toBe(403);
      expect((await t.inject(path('urn:mediator:lab'), { method: 'DELETE', headers: admin })).status).toBe(200);
      expect((await t.inject(path('urn:mediator:lab'), { headers: admin })).status).toBe(404);
      expect((await t.inject(path('urn:mediator:lab'), { method: 'DELETE', headers: admin })).status).toBe(404);
      expect(await t.junction.store.channels.count({})).toBe(channels);
    });
  });
});
