import { describe, expect, expectTypeOf, it } from 'vitest';
import { resolveConfig } from '../../service/config/index.js';
import type { JunctionConfig } from '../../service/config/index.js';

const home = '/home/ada';

describe('defaults', () => {
  const { config, warnings } = resolveConfig({ env: {}, platform: 'linux', homeDir: home });

  it('match the documented table', () => {
    expect(warnings).toEqual([]);
    expect(config).toEqual({
      dataDir: '/home/ada/.local/share/junction',
      adminPassword: undefined,
      api: {
        host: '0.0.0.0',
        port: 8080,
        protocol: 'https',
        bodyLimitBytes: 5242880,
        authenticationTypes: ['basic', 'local'],
        sessionTimeoutMinutes: 120,
        corsOrigins: [],
        idleTimeoutSeconds: 120,
        loginThrottle: { maxFailuresPerAccount: 10, maxFailuresPerAddress: 50, windowSeconds: 900 },
        openid: {
          issuerUrl: '', clientId: '', clientSecret: undefined, callbackUrl: '', scope: 'openid email profile', emailClaim: 'email', nameClaim: 'name',
          groupsClaim: '', adminGroups: [], createUsers: false, displayName: 'OpenID Connect',
        },
      },
      tls: { certFile: '', keyFile: '', keyPassphrase: undefined, trustedCAFiles: [] },
      keystore: { secretFile: '', expiryWarningDays: 30, expiryAlertGroups: [] },
      router: { host: '0.0.0.0', httpsPort: 5000, httpPort: 5001, timeoutMs: 60_000, maxBodyBytes: 16_777_216, matchBodyLimitBytes: 10_485_760, routeCheckTimeoutMs: 5000 },
      tcp: { maxMessageBytes: 16_777_216, idleTimeoutSeconds: 600, maxConnectionsPerChannel: 200, maxConnectionsPerAddress: 16, silentTimeoutSeconds: 120, connectionsPerRoute: 16 },
      connections: { maxTotal: 0, maxPerAddress: 128, headTimeoutSeconds: 30, handshakeTimeoutSeconds: 10, silentTimeoutSeconds: 30, frameTimeoutSeconds: 60 },
      authentication: {
        enableMutualTLSAuthentication: true,
        enableBasicAuthentication: true,
        enableCustomTokenAuthentication: false,
        enableJWTAuthentication: false,
        jwt: { secretOrPublicKey: undefined, algorithms: ['HS256'], audience: [], issuer: '' },
        throttle: { maxFailuresPerClientPerAddress: 10, maxFailuresPerClient: 100, maxFailuresPerAddress: 50, windowSeconds: 300 },
      },
      auditing: {
        host: '0.0.0.0',
        servers: {
          udp: { enabled: false, port: 5050 },
          tls: { enabled: false, port: 5051, requireClientCertificate: true },
          tcp: { enabled: false, port: 5052 },
        },
        maxMessageBytes: 262_144,
        maxConnections: 500,
        idleTimeoutSeconds: 600,
        retentionDays: 0,
      },
      attention: { refusalWindowMinutes: 60, failedMessagesHours: 24, autoRetryQueueWarning: 20, searchBehindMinutes: 5, searchBehindTransactions: 10_000 },
      auditEvents: { interface: 'internal', host: '', port: 5051, auditSourceID: 'Junction', maxQueued: 100_000, retryMaxSeconds: 300 },
      logging: { level: 'info', file: { enabled: true, maxSizeMB: 10, maxFiles: 7 } },
      retention: { maxAgeDays: 0 },
      search: { enabled: true, maxTextBytes: 65_536, countWithinMs: 400, intervalMs: 1000 },
      storage: {
        engine: 'embedded',
        compactionIntervalMinutes: 60,
        disk: { checkIntervalSeconds: 10, warningMB: 1024, floorMB: 128 },
        postgres: { host: 'localhost', port: 5432, database: 'junction', user: 'junction', poolSize: 10, commitWindowMs: 1, writeTimeoutMs: 10000, queryTimeoutMs: 60000, tls: { enabled: false, caFile: '' }, cluster: { heartbeatMs: 5000, deadAfterMs: 15000, leaseMs: 20000 } },
      },
      mediators: { offlineAfterSeconds: 60 },
      tasks: { concurrency: 1 },
      timeZone: '',
      metrics: { minuteRetentionHours: 24 },
      prometheus: { public: false },
      refusals: { flushIntervalSeconds: 5, maxPendingRows: 10_000, maxAgeDays: 0 },
      email: {
        fromAddress: '',
        smtp: { host: '', port: 587, secure: false, requireTLS: true, rejectUnauthorized: true, user: '', password: undefined, timeoutSeconds: 30 },
      },
      sms: { gatewayUrl: '', format: 'json', toField: 'to', textField: 'text', from: '', authorization: undefined, timeoutSeconds: 30 },
      notifications: { maxAttempts: 10, keepDays: 30 },
      alerts: { enableAlerts: true, pollPeriodMinutes: 1, minuteMs: 60_000, himInstance: 'Junction', consoleURL: '' },
      reports: { enableReports: true },
      autoRetry: { scanIntervalMs: 60_000, minuteMs: 60_000 },
      backup: { folder: '', schedule: '0 2 * * *', keep: 7 },
    });
  });

  it('have every key present, optional secrets included', () => {
    expect(Object.keys(config)).toContain('adminPassword');
    expect(Object.keys(config.tls)).toContain('keyPassphrase');
    expect(Object.keys(config.authentication.jwt)).toContain('secretOrPublicKey');
  });

  it('are deep-frozen', () => {
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.api.loginThrottle)).toBe(true);
    expect(Object.isFrozen(config.api.authenticationTypes)).toBe(true);
    expect(() => {
      (config.api as { port: number }).port = 1;
    }).toThrow(TypeError);
  });

  it('are a fresh object on every call, unaffected by earlier callers', () => {
    const again = resolveConfig({ env: {}, platform: 'linux', homeDir: home }).config;
    expect(again).not.toBe(config);
    expect(again).toEqual(config);
  });

  it('type the enumerations and secrets precisely', () => {
    expectTypeOf<JunctionConfig['api']['protocol']>().toEqualTypeOf<'https' | 'http'>();
    expectTypeOf<JunctionConfig['logging']['level']>().toEqualTypeOf<
      'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent'
    >();
    expectTypeOf<JunctionConfig['adminPassword']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<JunctionConfig['api']['port']>().toEqualTypeOf<number>();
  });
});

describe('per-user data folder', () => {
  const dataDir = (platform: NodeJS.Platform, env: Record<string, string>, homeDir = home) =>
    resolveConfig({ env, platform, homeDir }).config.dataDir;

  it('uses $XDG_DATA_HOME/junction on Linux when it is set', () => {
    expect(dataDir('linux', { XDG_DATA_HOME: '/data/xdg' })).toBe('/data/xdg/junction');
  });

  it('falls back to ~/.local/share/junction on Linux', () => {
    expect(dataDir('linux', {})).toBe('/home/ada/.local/share/junction');
    expect(dataDir('linux', { XDG_DATA_HOME: '' })).toBe('/home/ada/.local/share/junction');
    // The XDG spec says a relative XDG_DATA_HOME is invalid and must be ignored.
    expect(dataDir('linux', { XDG_DATA_HOME: 'relative/xdg' })).toBe('/home/ada/.local/share/junction');
  });

  it('uses ~/Library/Application Support/Junction on macOS, ignoring XDG', () => {
    expect(dataDir('darwin', { XDG_DATA_HOME: '/data/xdg' }, '/Users/ada')).toBe(
      '/Users/ada/Library/Application Support/Junction',
    );
  });

  it('uses %APPDATA%\\Junction on Windows, else ~/AppData/Roaming/Junction', () => {
    expect(dataDir('win32', { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, 'C:\\Users\\ada')).toBe(
      'C:\\Users\\ada\\AppData\\Roaming\\Junction',
    );
    expect(dataDir('win32', {}, 'C:\\Users\\ada')).toBe('C:\\Users\\ada\\AppData\\Roaming\\Junction');
  });

  it('is replaced by a configured dataDir', () => {
    expect(resolveConfig({ file: { dataDir: '/srv/junction' }, env: {}, platform: 'linux', homeDir: home }).config.dataDir).toBe(
      '/srv/junction',
    );
  });
});
