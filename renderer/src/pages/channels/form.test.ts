/** The channel editor's form model: a stored channel as a form, a form as the POST and PUT bodies, and the problems found before saving. */
import { describe, expect, it } from 'vitest';
import type { Channel } from '../../../../service/contracts/channels';
import { ROUTE_PASSWORD_MASK } from '../../api/channels';
import { clientProblems, createBody, defaultRouteType, emptyForm, formFromChannel, newAlert, newProperty, newRecipient, newRewriteRule, newRoute, retypeUntouched, rowKey, updateBody } from './form';
import type { ChannelForm } from './form';

/** A channel as the API answers it, with every optional setting present. */
function storedChannel(): Channel {
  return {
    _id: '65f0c0ffee00000000000001',
    name: 'Lab results',
    description: 'Results from the central lab',
    type: 'http',
    urlPattern: '^/lab/.*$',
    methods: ['POST', 'PUT'],
    priority: 2,
    status: 'enabled',
    authType: 'private',
    allow: ['lab', 'doctors', 'pharmacy'],
    whitelist: ['10.0.0.5'],
    matchContentTypes: ['application/json'],
    matchContentJson: 'patient.id',
    matchContentValue: '123',
    requestBody: true,
    responseBody: false,
    autoRetryEnabled: true,
    autoRetryPeriodMinutes: 15,
    autoRetryMaxAttempts: 4,
    rewriteUrls: true,
    addAutoRewriteRules: false,
    rewriteUrlsConfig: [{ fromHost: 'lab.internal', fromPort: 8080, toHost: 'junction.clinic', toPort: 5001, pathTransform: 's/lab/results/' }],
    txViewAcl: ['auditors'],
    txViewFullAcl: ['admins'],
    txRerunAcl: ['admins'],
    alerts: [{ condition: 'status', status: '5xx', failureRate: 25, groups: ['on-call'], users: [{ user: 'nurse@clinic.example', method: 'sms', maxAlerts: '1 per hour' }] }],
    properties: [{ site: 'north' }, { ward: '3' }],
    timeout: 30000,
    maxBodyAgeDays: 30,
    routes: [
      { name: 'Lab server', type: 'http', host: 'lab.internal', port: 8080, path: '/results', primary: true, secured: true, username: 'junction', password: ROUTE_PASSWORD_MASK, forwardAuthHeader: false, status: 'enabled', waitPrimaryResponse: false },
      { name: 'Archive', type: 'http', host: 'archive.internal', port: 8443, pathTransform: 's/^/archive/', primary: false, secured: false, forwardAuthHeader: true, status: 'disabled', waitPrimaryResponse: true, statusCodesCheck: '2**', kafkaTopic: 'kept' },
    ],
    createdAt: '2024-05-01T10:00:00.000Z',
    updatedAt: '2024-05-01T10:00:00.000Z',
  };
}

const CLIENTS = new Set(['lab', 'pharmacy']);

/** The allowed names of a body in a fixed order (the form sends clients first, then roles). */
function sortedAllow(body: { allow?: string[] }): string[] {
  return [...(body.allow ?? [])].sort();
}

describe('a stored channel in the editor', () => {
  it('sends back every setting unchanged when nothing is edited', () => {
    const channel = storedChannel();
    const body = updateBody(formFromChannel(channel, CLIENTS));
    const { _id, createdAt: _created, updatedAt: _updated, allow, ...settings } = channel;
    expect(body).toEqual({
      ...settings,
      allow: body.allow,
      matchContentRegex: null,
      matchContentXpath: null,
      tcpHost: null,
      tcpPort: null,
      tcpFraming: null,
      requireClientCertificate: null,
      pollingSchedule: null,
    });
    // Clients first, then roles: the same set of names.
    expect(sortedAllow(body)).toEqual([...allow].sort());
  });

  it('keeps a stored route password by sending the mask back, and sends no password where none is stored', () => {
    const body = updateBody(formFromChannel(storedChannel(), CLIENTS));
    expect(body.routes?.[0]?.password).toBe(ROUTE_PASSWORD_MASK);
    expect(body.routes?.[1]).not.toHaveProperty('password');
  });

  it('sends a newly typed route password instead of the mask', () => {
    const form = formFromChannel(storedChannel(), CLIENTS);
    const [first] = form.routes;
    if (first === undefined) throw new Error('no route');
    expect(first).toMatchObject({ password: '', passwordStored: true });
    first.password = 'new-secret';
    expect(updateBody(form).routes?.[0]?.password).toBe('new-secret');
  });

  it('tells clients from roles in the allow list by the known client ids', () => {
    const form = formFromChannel(storedChannel(), CLIENTS);
    expect(form.allowClients).toEqual(['lab', 'pharmacy']);
    expect(form.allowRoles).toEqual(['doctors']);
  });

  it('sends each allowed name once even when it was picked as a client and typed as a role', () => {
    const form = { ...emptyForm(), allowClients: ['lab'], allowRoles: ['lab', 'doctors'] };
    expect(updateBody(form).allow).toEqual(['lab', 'doctors']);
  });

  it('reads a property item with several keys as one row per key', () => {
    const form = formFromChannel({ ...storedChannel(), properties: [{ site: 'north', ward: '3' }] }, CLIENTS);
    expect(form.properties.map(({ name, value }) => ({ name, value }))).toEqual([
      { name: 'site', value: 'north' },
      { name: 'ward', value: '3' },
    ]);
    expect(updateBody(form).properties).toEqual([{ site: 'north' }, { ward: '3' }]);
  });

  it('fills the inputs of settings the channel does not have with empty values', () => {
    const { description: _d, priority: _p, timeout: _t, maxBodyAgeDays: _m, autoRetryMaxAttempts: _a, matchContentJson: _j, matchContentValue: _v, ...bare } = storedChannel();
    const form = formFromChannel(bare, CLIENTS);
    expect(form).toMatchObject({ description: '', priority: '', timeout: '', maxBodyAgeDays: '', limitBodyAge: false, autoRetryMaxAttempts: '', limitRetries: false, matchMode: 'none', matchContentValue: '' });
    // Saved as they are, the missing settings stay missing.
    expect(updateBody(form)).toMatchObject({ description: null, priority: null, timeout: null, maxBodyAgeDays: null, autoRetryMaxAttempts: null, matchContentJson: null, matchContentValue: null });
  });

  it('shows a disabled channel and a disabled route as not enabled, and saves them so', () => {
    const channel = { ...storedChannel(), status: 'disabled' as const };
    const form = formFromChannel(channel, CLIENTS);
    expect(form.enabled).toBe(false);
    expect(form.routes.map((r) => r.enabled)).toEqual([true, false]);
    const body = updateBody(form);
    expect(body.status).toBe('disabled');
    expect(body.routes?.map((r) => r.status)).toEqual(['enabled', 'disabled']);
  });

  it('picks the matching mode from the setting the channel has', () => {
    const base = storedChannel();
    const modes = [
      [{ matchContentRegex: 'PID\\|' }, 'regex'],
      [{ matchContentXpath: '//patient/@id', matchContentValue: '123' }, 'xml'],
      [{ matchContentJson: 'patient.id', matchContentValue: '123' }, 'json'],
      [{}, 'none'],
    ] as const;
    for (const [setting, mode] of modes) {
      const { matchContentJson: _json, matchContentValue: _value, ...rest } = base;
      expect(formFromChannel({ ...rest, ...setting }, CLIENTS).matchMode).toBe(mode);
    }
  });
});

describe('the PUT body', () => {
  function edited(change: Partial<ChannelForm>): ChannelForm {
    return { ...formFromChannel(storedChannel(), CLIENTS), ...change };
  }

  it('removes optional settings left empty (null), trimming what was typed', () => {
    const body = updateBody(edited({ description: '   ', priority: '', timeout: '', name: '  Lab results  ' }));
    expect(body).toMatchObject({ name: 'Lab results', description: null, priority: null, timeout: null });
  });

  it('removes the match settings of the other modes', () => {
    expect(updateBody(edited({ matchMode: 'regex', matchContentRegex: 'PID\\|' }))).toMatchObject({
      matchContentRegex: 'PID\\|',
      matchContentXpath: null,
      matchContentJson: null,
      matchContentValue: null,
    });
    expect(updateBody(edited({ matchMode: 'xml', matchContentXpath: '//id', matchContentValue: '9' }))).toMatchObject({ matchContentRegex: null, matchContentXpath: '//id', matchContentJson: null, matchContentValue: '9' });
    expect(updateBody(edited({ matchMode: 'none' }))).toMatchObject({ matchContentRegex: null, matchContentXpath: null, matchContentJson: null, matchContentValue: null });
  });

  it('sends socket settings only for TCP and TLS channels, with no URL pattern', () => {
    const tcp = updateBody(edited({ type: 'tcp', tcpHost: ' 0.0.0.0 ', tcpPort: 7001, urlPattern: '^/lab/.*$' }));
    expect(tcp).toMatchObject({ type: 'tcp', urlPattern: '', tcpHost: '0.0.0.0', tcpPort: 7001, pollingSchedule: null });
    const http = updateBody(edited({ type: 'http', tcpHost: '0.0.0.0', tcpPort: 7001 }));
    expect(http).toMatchObject({ urlPattern: '^/lab/.*$', tcpHost: null, tcpPort: null });
  });

  it('reads and sends the framing and the client certificate setting of a TLS channel', () => {
    const tls: Channel = { ...storedChannel(), type: 'tls', urlPattern: '', tcpHost: '0.0.0.0', tcpPort: 2575, tcpFraming: 'mllp', requireClientCertificate: true };
    const form = formFromChannel(tls, CLIENTS);
    expect(form).toMatchObject({ type: 'tls', tcpHost: '0.0.0.0', tcpPort: 2575, tcpFraming: 'mllp', requireClientCertificate: true });
    expect(updateBody(form)).toMatchObject({ type: 'tls', tcpHost: '0.0.0.0', tcpPort: 2575, tcpFraming: 'mllp', requireClientCertificate: true });
    // A channel stored without them (OpenHIM's, or one made before they existed) reads as the service's defaults.
    const { tcpFraming: _f, requireClientCertificate: _r, ...bare } = tls;
    expect(formFromChannel(bare, CLIENTS)).toMatchObject({ tcpFraming: 'auto', requireClientCertificate: false });
  });

  it('sends the client certificate setting only for TLS channels and the framing only for TCP and TLS', () => {
    // The service refuses requireClientCertificate on other types and a framing other than auto on non-socket channels.
    expect(updateBody(edited({ type: 'tcp', tcpPort: 2575, tcpFraming: 'stream', requireClientCertificate: true }))).toMatchObject({ tcpFraming: 'stream', requireClientCertificate: null });
    expect(updateBody(edited({ type: 'http', tcpFraming: 'mllp', requireClientCertificate: true }))).toMatchObject({ tcpFraming: null, requireClientCertificate: null });
    const created = createBody({ ...emptyForm(), name: 'Web', urlPattern: '^/x$', tcpFraming: 'mllp', requireClientCertificate: true });
    expect(created).not.toHaveProperty('tcpFraming');
    expect(created).not.toHaveProperty('requireClientCertificate');
  });

  it('clears the request matching of a TCP or TLS channel, which takes everything arriving on its port, and keeps it in the form', () => {
    const form = edited({ type: 'tcp', tcpPort: 2575 });
    expect(updateBody(form)).toMatchObject({ methods: [], matchContentTypes: [], matchContentRegex: null, matchContentXpath: null, matchContentJson: null, matchContentValue: null });
    // Switching back to HTTP before saving finds the matching as it was.
    expect(updateBody({ ...form, type: 'http' })).toMatchObject({ methods: ['POST', 'PUT'], matchContentTypes: ['application/json'], matchContentJson: 'patient.id', matchContentValue: '123' });
  });

  it('leaves the HTTP-only settings out of MLLP and TCP routes, and keeps their TLS choice', () => {
    const http = { ...newRoute(true), name: 'lab', host: 'lab', port: 2575 as const, path: '/in', pathTransform: '', username: 'u', password: 'p', forwardAuthHeader: true, secured: true };
    for (const type of ['mllp', 'tcp'] as const) {
      const body = updateBody(edited({ routes: [{ ...http, type }] }));
      expect(body.routes).toEqual([{ name: 'lab', type, host: 'lab', port: 2575, primary: true, secured: true, forwardAuthHeader: false, status: 'enabled', waitPrimaryResponse: false }]);
    }
    // The same route as HTTP sends them.
    expect(updateBody(edited({ routes: [http] })).routes?.[0]).toMatchObject({ path: '/in', username: 'u', password: 'p', forwardAuthHeader: true });
    // A stored password of a route now sent over MLLP is not sent back: the route has no use for it.
    const stored = { ...http, type: 'mllp' as const, password: '', passwordStored: true };
    expect(updateBody(edited({ routes: [stored] })).routes?.[0]).not.toHaveProperty('password');
  });

  it('sends the polling schedule only for polling channels', () => {
    expect(updateBody(edited({ type: 'polling', pollingSchedule: '5 minutes' })).pollingSchedule).toBe('5 minutes');
    expect(updateBody(edited({ type: 'http', pollingSchedule: '5 minutes' })).pollingSchedule).toBeNull();
  });

  it('removes the body age and retry limits when their boxes are unticked, whatever number is left in them', () => {
    expect(updateBody(edited({ limitBodyAge: false, maxBodyAgeDays: 30, limitRetries: false, autoRetryMaxAttempts: 4 }))).toMatchObject({ maxBodyAgeDays: null, autoRetryMaxAttempts: null });
  });

  it('leaves the retry wait out when its box is empty, so the stored value stays', () => {
    expect(updateBody(edited({ autoRetryPeriodMinutes: '' }))).not.toHaveProperty('autoRetryPeriodMinutes');
    expect(updateBody(edited({ autoRetryPeriodMinutes: 5 })).autoRetryPeriodMinutes).toBe(5);
  });

  it('leaves out empty optional route, rule and alert fields, so the server names what is missing', () => {
    const route = { ...newRoute(true), name: ' Main ', host: ' lab ', path: ' ', username: '' };
    const rule = { ...newRewriteRule(), fromHost: 'a', toHost: 'b', fromPort: 80 as const };
    const alert = { ...newAlert(), condition: 'auto-retry-max-attempted' as const, status: '5xx', users: [{ ...newRecipient(), user: ' nurse@clinic.example ' }] };
    const body = updateBody(edited({ routes: [route], rewriteUrlsConfig: [rule], alerts: [alert] }));
    expect(body.routes).toEqual([{ name: 'Main', type: 'http', host: 'lab', primary: true, secured: false, forwardAuthHeader: false, status: 'enabled', waitPrimaryResponse: false }]);
    expect(body.rewriteUrlsConfig).toEqual([{ fromHost: 'a', toHost: 'b', fromPort: 80 }]);
    // A status code belongs to status alerts only.
    expect(body.alerts).toEqual([{ condition: 'auto-retry-max-attempted', groups: [], users: [{ user: 'nurse@clinic.example', method: 'email', maxAlerts: 'no max' }] }]);
  });
});

describe('the POST body', () => {
  it('leaves out every setting left empty instead of sending null', () => {
    const form = { ...emptyForm(), name: 'New', urlPattern: '^/new$' };
    const body = createBody(form);
    expect(Object.values(body)).not.toContain(null);
    expect(body).not.toHaveProperty('description');
    expect(body).not.toHaveProperty('tcpPort');
    expect(body).toMatchObject({ name: 'New', urlPattern: '^/new$', type: 'http', status: 'enabled', authType: 'private', autoRetryPeriodMinutes: 60 });
    expect(body.routes).toEqual([{ name: '', type: 'http', host: '', primary: true, secured: false, forwardAuthHeader: false, status: 'enabled', waitPrimaryResponse: false }]);
  });

  it('keeps what the PUT body would send for the same channel, minus the removals', () => {
    const form = formFromChannel(storedChannel(), CLIENTS);
    const put = updateBody(form);
    const post = createBody(form);
    expect(post).toEqual(Object.fromEntries(Object.entries(put).filter(([, v]) => v !== null)));
  });
});

describe('problems found before saving', () => {
  const valid = (): ChannelForm => ({ ...emptyForm(), name: 'Lab', routes: [{ ...newRoute(true), name: 'r', host: 'h', port: 80 }] });

  it('finds none in a complete form', () => {
    expect(clientProblems(valid())).toEqual({});
  });

  it('requires a name', () => {
    expect(clientProblems({ ...valid(), name: '  ' })).toEqual({ name: 'is required' });
  });

  it('requires at least one route, and exactly one enabled primary', () => {
    expect(clientProblems({ ...valid(), routes: [] })).toEqual({ routes: 'must include at least one route' });
    const noPrimary = [{ ...newRoute(false) }];
    const two = [newRoute(true), newRoute(true)];
    const disabledPrimary = [{ ...newRoute(true), enabled: false }, newRoute(false)];
    for (const routes of [noPrimary, two, disabledPrimary]) expect(clientProblems({ ...valid(), routes })).toEqual({ routes: 'must have exactly one enabled route marked as primary' });
    expect(clientProblems({ ...valid(), routes: [newRoute(true), { ...newRoute(true), enabled: false }] })).toEqual({});
  });

  it('requires a port for TCP and TLS channels, worded as the service words it', () => {
    expect(clientProblems({ ...valid(), type: 'tcp' })).toEqual({ tcpPort: 'is required for tcp channels' });
    expect(clientProblems({ ...valid(), type: 'tls' })).toEqual({ tcpPort: 'is required for tls channels' });
    expect(clientProblems({ ...valid(), type: 'tls', tcpPort: 2575 })).toEqual({});
    expect(clientProblems({ ...valid(), type: 'http' })).toEqual({});
  });

  it('requires the number when a limit box is ticked', () => {
    expect(clientProblems({ ...valid(), limitRetries: true, autoRetryMaxAttempts: '' })).toEqual({ autoRetryMaxAttempts: 'is needed when the number of attempts is limited' });
    expect(clientProblems({ ...valid(), limitBodyAge: true, maxBodyAgeDays: '' })).toEqual({ maxBodyAgeDays: 'is needed when stored bodies are deleted after some days' });
    expect(clientProblems({ ...valid(), limitRetries: true, autoRetryMaxAttempts: 0, limitBodyAge: true, maxBodyAgeDays: 1 })).toEqual({});
  });
});

describe('rows', () => {
  it('gives every new row its own key, so rows keep their inputs while others are added and removed', () => {
    const keys = [rowKey(), newRoute(true).key, newRewriteRule().key, newRecipient().key, newAlert().key, newProperty().key, ...formFromChannel(storedChannel(), CLIENTS).routes.map((r) => r.key)];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('starts a new channel with the service defaults and one primary route', () => {
    const form = emptyForm();
    expect(form).toMatchObject({ type: 'http', authType: 'private', enabled: true, requestBody: true, responseBody: true, autoRetryPeriodMinutes: 60, addAutoRewriteRules: true, matchMode: 'none' });
    expect(form.routes).toHaveLength(1);
    expect(form.routes[0]).toMatchObject({ primary: true, enabled: true, type: 'http', passwordStored: false });
  });
});

describe('OpenHIM route fields and unlimited retries', () => {
  it('keeps a waiting route with its status check and Kafka settings, and never lets the primary wait', () => {
    const form = formFromChannel(storedChannel(), CLIENTS);
    expect(form.routes[1]).toMatchObject({ waitPrimaryResponse: true, statusCodesCheck: '2**', kafkaTopic: 'kept' });
    const body = updateBody({ ...form, routes: [{ ...form.routes[0]!, waitPrimaryResponse: true, statusCodesCheck: '200' }, form.routes[1]!] });
    expect(body.routes?.[0]).toMatchObject({ waitPrimaryResponse: false });
    expect(body.routes?.[0]).not.toHaveProperty('statusCodesCheck');
    expect(body.routes?.[1]).toMatchObject({ waitPrimaryResponse: true, statusCodesCheck: '2**', kafkaTopic: 'kept' });
  });

  it('reads autoRetryMaxAttempts 0 as unlimited', () => {
    expect(formFromChannel({ ...storedChannel(), autoRetryMaxAttempts: 0 }, CLIENTS)).toMatchObject({ limitRetries: false, autoRetryMaxAttempts: '' });
  });
});

describe('issue 36: the editor guides the setup', () => {
  it('starts routes of an MLLP channel as MLLP routes, of a stream channel as TCP, of others as HTTP', () => {
    expect(defaultRouteType({ type: 'http', tcpFraming: 'auto' })).toBe('http');
    expect(defaultRouteType({ type: 'polling', tcpFraming: 'auto' })).toBe('http');
    expect(defaultRouteType({ type: 'tcp', tcpFraming: 'auto' })).toBe('mllp');
    expect(defaultRouteType({ type: 'tls', tcpFraming: 'mllp' })).toBe('mllp');
    expect(defaultRouteType({ type: 'tcp', tcpFraming: 'stream' })).toBe('tcp');
    expect(newRoute(true, 'mllp').type).toBe('mllp');
  });

  it('retypes only the routes nobody has filled in', () => {
    const blank = newRoute(true);
    const filled = { ...newRoute(false), name: 'archive', host: 'archive.local', port: 8080 };
    const [first, second] = retypeUntouched([blank, filled], 'mllp');
    expect(first?.type).toBe('mllp');
    expect(second?.type).toBe('http');
    expect(retypeUntouched([{ ...newRoute(true), host: 'lab' }], 'mllp')[0]?.type).toBe('http');
  });

  it('reads a prefix-shaped URL pattern back as its prefix, and leaves other patterns without one', () => {
    expect(formFromChannel({ ...storedChannel(), urlPattern: '^/fhir(/.*)?$' }, CLIENTS)).toMatchObject({ urlPrefix: '/fhir', urlPattern: '^/fhir(/.*)?$' });
    expect(formFromChannel(storedChannel(), CLIENTS).urlPrefix).toBe('');
  });

  it('calls a 5xx status rule "fails" and stores it as OpenHIM does', () => {
    const form = formFromChannel(storedChannel(), CLIENTS);
    expect(form.alerts[0]).toMatchObject({ condition: 'status', fails: true });
    expect(updateBody(form).alerts?.[0]).toMatchObject({ condition: 'status', status: '5xx' });
    const chosen = { ...newAlert(), fails: true, status: '' };
    expect(updateBody({ ...form, alerts: [chosen] }).alerts?.[0]).toMatchObject({ condition: 'status', status: '5xx' });
    expect(updateBody({ ...form, alerts: [{ ...newAlert(), status: '404' }] }).alerts?.[0]).toMatchObject({ condition: 'status', status: '404' });
  });
});
