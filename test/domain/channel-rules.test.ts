import { describe, expect, it } from 'vitest';
import { channelProblems, isPollingSchedule, parsePathTransform, unusablePatterns } from '../../service/domain/channels/channel-rules.js';
import type { ChannelDraft } from '../../service/domain/channels/channel-rules.js';
import type { RouteRecord } from '../../service/storage/records.js';

function route(overrides: Partial<RouteRecord> = {}): RouteRecord {
  return { name: 'main', type: 'http', host: 'localhost', port: 8080, primary: true, secured: false, forwardAuthHeader: false, status: 'enabled', waitPrimaryResponse: false, ...overrides };
}

function channel(overrides: Partial<ChannelDraft> = {}): ChannelDraft {
  return {
    name: 'c',
    type: 'http',
    urlPattern: '^/fhir/.*$',
    methods: [],
    status: 'enabled',
    authType: 'private',
    allow: [],
    whitelist: [],
    matchContentTypes: [],
    requestBody: true,
    responseBody: true,
    autoRetryEnabled: false,
    autoRetryPeriodMinutes: 60,
    rewriteUrls: false,
    addAutoRewriteRules: true,
    rewriteUrlsConfig: [],
    txViewAcl: [],
    txViewFullAcl: [],
    txRerunAcl: [],
    alerts: [],
    properties: [],
    routes: [route()],
    ...overrides,
  };
}

const paths = (c: ChannelDraft) => channelProblems(c).map((p) => p.path);

describe('channel rules', () => {
  it('accepts a complete, valid channel', () => {
    const valid = channel({
      methods: ['GET', 'post'],
      priority: 1,
      timeout: 3_600_000,
      maxBodyAgeDays: 30,
      whitelist: ['127.0.0.1', '::1'],
      matchContentRegex: '<Patient',
      routes: [route(), route({ name: 'copy', primary: false, pathTransform: 's/\\/fhir/\\/api/g' }), route({ name: 'old', primary: true, status: 'disabled' })],
    });
    expect(channelProblems(valid)).toEqual([]);
  });

  it('needs at least one route', () => {
    expect(channelProblems(channel({ routes: [] }))).toEqual([{ path: 'body.routes', message: 'must contain at least one route' }]);
  });

  it('needs exactly one primary among the enabled routes', () => {
    expect(paths(channel({ routes: [route({ primary: false })] }))).toEqual(['body.routes']);
    const two = channelProblems(channel({ routes: [route({ name: 'a' }), route({ name: 'b' })] }));
    expect(two).toEqual([{ path: 'body.routes', message: expect.stringContaining('a, b are') as string }]);
    // The only primary being disabled leaves none.
    expect(paths(channel({ routes: [route({ status: 'disabled' }), route({ name: 'b', primary: false })] }))).toEqual(['body.routes']);
  });

  it('refuses repeated route names, since names carry masked passwords across updates', () => {
    expect(paths(channel({ routes: [route(), route({ primary: false })] }))).toEqual(['body.routes.1.name']);
  });

  it('refuses regexes that do not compile, naming the field', () => {
    expect(paths(channel({ urlPattern: '^/fhir/(' }))).toEqual(['body.urlPattern']);
    expect(paths(channel({ matchContentRegex: '[' }))).toEqual(['body.matchContentRegex']);
  });

  it('refuses patterns and path transforms that cannot run in linear time, naming the field and why', () => {
    const linear = 'Junction matches patterns in linear time';
    expect(channelProblems(channel({ urlPattern: '^/(?<=a)b' }))).toEqual([{ path: 'body.urlPattern', message: `lookbehind (?<=...) is not supported; ${linear}` }]);
    expect(channelProblems(channel({ matchContentRegex: '(\\d)\\1' }))).toEqual([{ path: 'body.matchContentRegex', message: `backreferences such as \\1 are not supported; ${linear}` }]);
    expect(channelProblems(channel({ routes: [route({ pathTransform: 's/(a)\\1/b/' })] }))).toEqual([
      { path: 'body.routes.0.pathTransform', message: `has a "from" pattern that backreferences such as \\1 are not supported; ${linear}` },
    ]);
    expect(channelProblems(channel({ rewriteUrlsConfig: [{ fromHost: 'a', toHost: 'b', fromPort: 1, toPort: 2, pathTransform: 's/(?<!x)y/z/' }] }))).toEqual([
      { path: 'body.rewriteUrlsConfig.0.pathTransform', message: `has a "from" pattern that lookbehind (?<!...) is not supported; ${linear}` },
    ]);
    // Backtracks exponentially in RegExp but runs in linear time here, so it is accepted.
    expect(channelProblems(channel({ urlPattern: '^/x/(a+)+$' }))).toEqual([]);
  });

  it('lists every unusable pattern of a stored channel, for the start-up warning', () => {
    const stored = channel({ urlPattern: '^/(?=x)', routes: [route({ pathTransform: 's/(a)\\1/b/' })], matchContentRegex: 'ok' });
    expect(unusablePatterns(stored).map((p) => p.path)).toEqual(['channel.urlPattern', 'channel.routes.0.pathTransform']);
    expect(unusablePatterns(channel())).toEqual([]);
  });

  it('needs a urlPattern on http and polling channels only', () => {
    expect(paths(channel({ urlPattern: '' }))).toEqual(['body.urlPattern']);
    expect(paths(channel({ type: 'tcp', urlPattern: '', tcpPort: 7000 }))).toEqual([]);
  });

  it('refuses a route with both path and pathTransform, and a malformed pathTransform', () => {
    const both = route({ path: '/x', pathTransform: 's/a/b/' });
    expect(paths(channel({ routes: [both] }))).toEqual(['body.routes.0.pathTransform']);
    for (const bad of ['a/b/', 's/a', 's/a/b/x', 's/a/b/g/h', 's//b/', 's/(/b/']) {
      expect(paths(channel({ routes: [route({ pathTransform: bad })] })), bad).toEqual(['body.routes.0.pathTransform']);
    }
    expect(paths(channel({ rewriteUrlsConfig: [{ fromHost: 'a', toHost: 'b', fromPort: 1, toPort: 2, pathTransform: 'x' }] }))).toEqual([
      'body.rewriteUrlsConfig.0.pathTransform',
    ]);
  });

  it('checks priority, timeout, retry, body age and port ranges', () => {
    expect(paths(channel({ priority: 0 }))).toEqual(['body.priority']);
    expect(paths(channel({ priority: 1.5 }))).toEqual(['body.priority']);
    expect(paths(channel({ timeout: 0 }))).toEqual(['body.timeout']);
    expect(paths(channel({ timeout: 3_600_001 }))).toEqual(['body.timeout']);
    expect(paths(channel({ maxBodyAgeDays: 36_501 }))).toEqual(['body.maxBodyAgeDays']);
    // autoRetryMaxAttempts 0 means unlimited, as in OpenHIM; below 0 is refused.
    expect(paths(channel({ autoRetryPeriodMinutes: 0, autoRetryMaxAttempts: 0 }))).toEqual(['body.autoRetryPeriodMinutes']);
    expect(paths(channel({ autoRetryMaxAttempts: -1 }))).toEqual(['body.autoRetryMaxAttempts']);
    expect(paths(channel({ routes: [route({ port: 70000 })] }))).toEqual(['body.routes.0.port']);
  });

  it('refuses a repeated method in any case and an unknown method', () => {
    expect(channelProblems(channel({ methods: ['GET', 'get'] }))).toEqual([{ path: 'body.methods.1', message: 'repeats GET (item 0)' }]);
    expect(paths(channel({ methods: ['FETCH'] }))).toEqual(['body.methods.0']);
  });

  it('pairs XPath and JSON matching with a value', () => {
    expect(paths(channel({ matchContentXpath: '//id' }))).toEqual(['body.matchContentValue']);
    expect(paths(channel({ matchContentJson: 'id' }))).toEqual(['body.matchContentValue']);
    expect(paths(channel({ matchContentValue: '1' }))).toEqual(['body.matchContentValue']);
    expect(paths(channel({ matchContentXpath: '//id', matchContentValue: '1' }))).toEqual([]);
    expect(paths(channel({ matchContentJson: 'id', matchContentValue: '1' }))).toEqual([]);
    expect(paths(channel({ matchContentXpath: '//id', matchContentJson: 'id', matchContentValue: '1' }))).toEqual(['body.matchContentJson']);
  });

  it('needs a port on tcp and tls channels and a schedule on polling channels', () => {
    expect(paths(channel({ type: 'tcp' }))).toEqual(['body.tcpPort']);
    expect(paths(channel({ type: 'tls', tcpPort: 7001 }))).toEqual([]);
    expect(paths(channel({ type: 'polling' }))).toEqual(['body.pollingSchedule']);
    expect(paths(channel({ type: 'polling', pollingSchedule: 'often' }))).toEqual(['body.pollingSchedule']);
    expect(paths(channel({ type: 'polling', pollingSchedule: '5 minutes' }))).toEqual([]);
  });

  it('allows mllp and tcp routes on an http channel, as OpenHIM does', () => {
    expect(paths(channel({ routes: [route({ type: 'mllp' }), route({ name: 't', type: 'tcp', primary: false })] }))).toEqual([]);
  });

  it('checks whitelisted addresses and status alerts', () => {
    expect(paths(channel({ whitelist: ['10.0.0.1', '10.0.0.300', 'fe80::1'] }))).toEqual(['body.whitelist.1']);
    expect(paths(channel({ alerts: [{ condition: 'status', groups: [], users: [] }] }))).toEqual(['body.alerts.0.status']);
    expect(paths(channel({ alerts: [{ condition: 'auto-retry-max-attempted', groups: [], users: [] }] }))).toEqual([]);
  });

  it('refuses Kafka routes until Junction sends them, and checks statusCodesCheck on waiting routes only', () => {
    const kafka = channelProblems(channel({ routes: [route(), route({ name: 'k', primary: false, type: 'kafka' as RouteRecord['type'] })] }));
    expect(kafka).toEqual([{ path: 'body.routes.1.type', message: 'Kafka routes are not supported yet' }]);
    const waiting = (statusCodesCheck: string, waitPrimaryResponse = true) => paths(channel({ routes: [route(), route({ name: 'w', primary: false, waitPrimaryResponse, statusCodesCheck })] }));
    expect(waiting('200, 2**,404')).toEqual([]);
    expect(waiting('2xx')).toEqual(['body.routes.1.statusCodesCheck']);
    expect(waiting('600')).toEqual(['body.routes.1.statusCodesCheck']);
    expect(waiting('200', false)).toEqual(['body.routes.1.statusCodesCheck']);
  });

  it('names fields under a given prefix', () => {
    expect(channelProblems(channel({ priority: 0 }), 'body.defaultChannelConfig.2')[0]?.path).toBe('body.defaultChannelConfig.2.priority');
  });
});

describe('parsePathTransform', () => {
  it('parses the three accepted forms', () => {
    expect(parsePathTransform('s/a/b')).toEqual({ from: 'a', to: 'b', global: false });
    expect(parsePathTransform('s/a/b/')).toEqual({ from: 'a', to: 'b', global: false });
    expect(parsePathTransform('s/a/b/g')).toEqual({ from: 'a', to: 'b', global: true });
    expect(parsePathTransform('s/a/b/i')).toBeNull();
  });

  it('unescapes slashes in from and to but keeps other escapes for the RegExp', () => {
    expect(parsePathTransform('s/^\\/fhir\\/(\\d+)/\\/api\\/$1/')).toEqual({ from: '^/fhir/(\\d+)', to: '/api/$1', global: false });
    expect(parsePathTransform('s/a\\\\/b/')).toEqual({ from: 'a\\\\', to: 'b', global: false });
  });

  it('refuses an empty or invalid from', () => {
    expect(parsePathTransform('s//b/')).toBeNull();
    expect(parsePathTransform('s/[/b/')).toBeNull();
  });
});

describe('isPollingSchedule', () => {
  it('accepts cron with 5 or 6 fields and "<n> <unit>"', () => {
    for (const ok of ['*/5 * * * *', '0 0 7 * * MON', '10 seconds', '1 hour', '2 days', '30 Minutes']) expect(isPollingSchedule(ok), ok).toBe(true);
    for (const bad of ['* * * *', '* * * * * * *', '0 seconds', '5 weeks', 'every day', '']) expect(isPollingSchedule(bad), bad).toBe(false);
  });
});
