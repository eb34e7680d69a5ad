import { describe, expect, it } from 'vitest';
import { castRegistrationValues, configDue, isOnline, registrationAction, registrationProblems, unmaskRegistration } from '../../service/domain/channels/mediator-registration.js';

describe('registrationAction', () => {
  it('creates new mediators, upgrades only to higher versions', () => {
    expect(registrationAction(undefined, '1.0.0')).toBe('create');
    expect(registrationAction('1.0.0', '1.0.1')).toBe('upgrade');
    expect(registrationAction('1.2.0', '1.10.0')).toBe('upgrade');
    expect(registrationAction('1.0.0', '1.0.0')).toBe('unchanged');
    expect(registrationAction('2.0.0', '1.9.9')).toBe('unchanged');
    expect(registrationAction('1.0.0', '1.0.0-beta.1')).toBe('unchanged');
    expect(registrationAction('1.0.0-beta.1', '1.0.0')).toBe('upgrade');
  });
});

describe('registrationProblems', () => {
  const endpoint = { name: 'e', host: 'h', port: 1 };
  it('needs a semver version and, for a new mediator, an endpoint', () => {
    expect(registrationProblems({ urn: 'u', version: 'latest', name: 'n' }, true).map((p) => p.path)).toEqual(['body.version', 'body.endpoints']);
    expect(registrationProblems({ urn: 'u', version: '1.0.0', name: 'n' }, false)).toEqual([]);
    expect(registrationProblems({ urn: 'u', version: '1.0.0', name: 'n', endpoints: [endpoint] }, true)).toEqual([]);
  });

  it('checks config only against valid definitions, so one mistake is reported once', () => {
    const problems = registrationProblems({ urn: 'u', version: '1.0.0', name: 'n', endpoints: [endpoint], configDefs: [{ param: 'o', type: 'option' }], config: { o: 'x' } }, true);
    expect(problems.map((p) => p.path)).toEqual(['body.configDefs.0.values']);
  });
});

describe('heartbeat decisions', () => {
  const at = (ms: number) => new Date(ms);
  it('is online while the last heartbeat is younger than the limit', () => {
    expect(isOnline(undefined, 1000, 60_000)).toBe(false);
    expect(isOnline(at(0), 59_999, 60_000)).toBe(true);
    expect(isOnline(at(0), 60_000, 60_000)).toBe(false);
  });

  it('sends the config when asked, or when it changed since the previous heartbeat', () => {
    expect(configDue({}, true)).toBe(true);
    expect(configDue({}, false)).toBe(false);
    expect(configDue({ _configModifiedTS: at(5) }, false)).toBe(true);
    expect(configDue({ _configModifiedTS: at(5), _lastHeartbeat: at(4) }, false)).toBe(true);
    expect(configDue({ _configModifiedTS: at(5), _lastHeartbeat: at(5) }, false)).toBe(true);
    expect(configDue({ _configModifiedTS: at(5), _lastHeartbeat: at(6) }, false)).toBe(false);
  });
});

describe('castRegistrationValues', () => {
  it('casts text ports and flags in endpoints and default channel routes, and nothing else', () => {
    const doc = {
      version: 1,
      endpoints: [{ port: '4000', primary: 'true', secured: 'false', name: '7' }],
      defaultChannelConfig: [{ tcpPort: '5000', priority: '2', routes: [{ port: ' 80 ', primary: 'yes' }, null] }],
    };
    castRegistrationValues(doc);
    expect(doc).toEqual({
      version: 1,
      endpoints: [{ port: 4000, primary: true, secured: false, name: '7' }],
      defaultChannelConfig: [{ tcpPort: 5000, priority: '2', routes: [{ port: 80, primary: 'yes' }, null] }],
    });
    expect(() => castRegistrationValues(null)).not.toThrow();
    expect(() => castRegistrationValues({ endpoints: 'x' })).not.toThrow();
  });
});

describe('castRegistrationValues: a default channel\'s only route', () => {
  it('is its primary route when the mediator did not say (as OpenHIM installs it), and is left alone when it did', () => {
    const doc = {
      defaultChannelConfig: [
        { routes: [{ name: 'only' }] },
        { routes: [{ name: 'only', primary: false }] },
        { routes: [{ name: 'one' }, { name: 'two' }] },
      ],
    };
    castRegistrationValues(doc);
    expect(doc.defaultChannelConfig.map((c) => c.routes)).toEqual([
      [{ name: 'only', primary: true }],
      [{ name: 'only', primary: false }],
      [{ name: 'one' }, { name: 'two' }],
    ]);
  });
});

describe('unmaskRegistration', () => {
  const stored = {
    _id: 'm1', urn: 'urn:m', version: '1.0.0', name: 'M', installedChannels: [], createdAt: new Date(0), updatedAt: new Date(0),
    endpoints: [{ name: 'ep', host: 'h', port: 1, password: 'ep-secret' }],
    defaultChannelConfig: [{ name: 'ch', urlPattern: '^/x$', routes: [{ name: 'r', host: 'h', port: 2, password: 'route-secret' }] }],
    configDefs: [{ param: 'key', type: 'password' as const }],
    config: { key: 'config-secret' },
  };

  it('puts the stored passwords back behind the masks (routes by name, config by parameter), and keeps new ones', () => {
    const doc = {
      urn: 'urn:m', version: '1.1.0', name: 'M',
      endpoints: [{ name: 'ep', host: 'h', port: 1, password: '********' }, { name: 'new', host: 'h', port: 3, password: 'typed' }],
      defaultChannelConfig: [{ name: 'ch', urlPattern: '^/x$', routes: [{ name: 'r', host: 'h', port: 2, password: '********' }] }],
      configDefs: stored.configDefs,
      config: { key: '********' },
    };
    const { doc: unmasked, problems } = unmaskRegistration(doc, stored);
    expect(problems).toEqual([]);
    expect(unmasked.endpoints?.map((e) => e.password)).toEqual(['ep-secret', 'typed']);
    expect(unmasked.defaultChannelConfig?.[0]?.routes[0]?.password).toBe('route-secret');
    expect(unmasked.config).toEqual({ key: 'config-secret' });
    expect(doc.endpoints[0]?.password).toBe('********');
  });

  it('names each mask with nothing stored behind it', () => {
    const doc = { urn: 'urn:m', version: '1.0.0', name: 'M', endpoints: [{ name: 'other', host: 'h', port: 1, password: '********' }], configDefs: stored.configDefs, config: { key: '********' } };
    expect(unmaskRegistration(doc, null).problems.map((p) => p.path)).toEqual(['body.endpoints.0.password', 'body.config.key']);
  });
});
