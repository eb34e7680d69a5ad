import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../service/config/index.js';
import { configError } from './helpers.js';

const base = { platform: 'linux' as const, homeDir: '/home/ada', fileName: '/etc/junction.json' };
const withFile = (file: unknown, env: Record<string, string> = {}) => resolveConfig({ ...base, file, env });

describe('ConfigError', () => {
  it('starts with "Invalid configuration:" and lists one problem per line', () => {
    const err = new ConfigError(['first', 'second\nline']);
    expect(err.message).toBe('Invalid configuration:\n- first\n- second line');
    expect(err.problems).toEqual(['first', 'second line']);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('ConfigError');
  });
});

describe('file validation', () => {
  it('names an unknown key by its full dotted path and suggests the likely one', () => {
    const err = configError(() => withFile({ api: { prot: 8081 }, logging: { file: { maxSize: 5 } } }));
    expect(err.problems).toEqual([
      'api.prot (in /etc/junction.json): is not a known setting; did you mean api.port?',
      'logging.file.maxSize (in /etc/junction.json): is not a known setting; did you mean logging.file.maxSizeMB?',
    ]);
  });

  it('names an unknown top-level key', () => {
    const err = configError(() => withFile({ routers: {} }));
    expect(err.problems).toEqual(['routers (in /etc/junction.json): is not a known setting; did you mean router?']);
  });

  it('refuses the removed storage engine names and storage.transactionLog, so no file silently loses its NeDB log', () => {
    const err = configError(() => withFile({ storage: { engine: 'nedb', transactionLog: 'nedb' } }));
    expect(err.problems).toEqual([
      'storage.transactionLog (in /etc/junction.json): is not a known setting',
      'storage.engine (in /etc/junction.json): must be one of "embedded", "postgres", not "nedb"',
    ]);
  });

  it('accepts the PostgreSQL settings with storage.engine postgres, from the file and the environment', () => {
    const { config } = withFile(
      { storage: { engine: 'postgres', postgres: { host: 'db.clinic', poolSize: 20, tls: { enabled: true, caFile: '/etc/ssl/db-ca.pem' } } } },
      { JUNCTION_STORAGE_POSTGRES_PASSWORD: 'hunter22', JUNCTION_STORAGE_POSTGRES_URL: 'postgres://junction@db.clinic:5433/junction' },
    );
    expect(config.storage.engine).toBe('postgres');
    expect(config.storage.postgres).toEqual({
      url: 'postgres://junction@db.clinic:5433/junction', host: 'db.clinic', port: 5432, database: 'junction', user: 'junction',
      password: 'hunter22', poolSize: 20, commitWindowMs: 1, writeTimeoutMs: 10_000, queryTimeoutMs: 60_000, tls: { enabled: true, caFile: '/etc/ssl/db-ca.pem' },
      cluster: { heartbeatMs: 5_000, deadAfterMs: 15_000, leaseMs: 20_000 },
    });
    // The statement bounds (a frozen server): none may be 0 (no bound) or below what a round trip can take.
    const bounds = configError(() => withFile({ storage: { engine: 'postgres', postgres: { writeTimeoutMs: 0, queryTimeoutMs: 500 } } })).problems;
    expect(bounds).toHaveLength(2);
    expect(bounds[0]).toMatch(/^storage\.postgres\.writeTimeoutMs/);
    expect(bounds[1]).toMatch(/^storage\.postgres\.queryTimeoutMs/);
    const fromEnv = withFile({}, { JUNCTION_STORAGE_ENGINE: 'postgres', JUNCTION_STORAGE_POSTGRES_HOST: 'db.clinic' }).config.storage;
    expect([fromEnv.engine, fromEnv.postgres.host]).toEqual(['postgres', 'db.clinic']);
    expect(configError(() => withFile({}, { JUNCTION_STORAGE_ENGINE: 'mongodb' })).problems).toEqual(['JUNCTION_STORAGE_ENGINE="mongodb" (storage.engine): must be one of "embedded", "postgres"']);
  });

  it('refuses PostgreSQL settings while storage.engine is embedded, naming each and never echoing the password', () => {
    const err = configError(() => withFile({ storage: { postgres: { host: 'db.clinic', poolSize: 20 } } }, { JUNCTION_STORAGE_POSTGRES_PASSWORD: 'hunter22' }));
    const why = 'is a setting of the PostgreSQL engine, but storage.engine is embedded; set storage.engine to postgres to use it, or remove it';
    expect(err.problems).toEqual([`storage.postgres.host: ${why}`, `storage.postgres.password: ${why}`, `storage.postgres.poolSize: ${why}`]);
    expect(err.problems.join('\n')).not.toContain('hunter22');
    // At their defaults they are what every configuration holds, and pass.
    expect(withFile({ storage: { engine: 'embedded', postgres: { host: 'localhost', poolSize: 10 } } }).config.storage.engine).toBe('embedded');
  });

  it('still checks the PostgreSQL settings\' values with the postgres engine', () => {
    const err = configError(() => withFile({ storage: { engine: 'postgres', postgres: { poolSize: 0, port: 70000 } } }));
    expect(err.problems).toEqual([
      'storage.postgres.port (in /etc/junction.json): must be an integer between 1 and 65535, not 70000',
      'storage.postgres.poolSize (in /etc/junction.json): must be an integer between 1 and 1000, not 0',
    ]);
  });

  it('takes the cluster timing from the environment, and refuses a death time shorter than two heartbeats', () => {
    const env = { JUNCTION_STORAGE_ENGINE: 'postgres', JUNCTION_STORAGE_POSTGRES_CLUSTER_HEARTBEAT_MS: '250', JUNCTION_STORAGE_POSTGRES_CLUSTER_DEAD_AFTER_MS: '1000', JUNCTION_STORAGE_POSTGRES_CLUSTER_LEASE_MS: '1500' };
    expect(withFile({}, env).config.storage.postgres.cluster).toEqual({ heartbeatMs: 250, deadAfterMs: 1000, leaseMs: 1500 });
    expect(configError(() => withFile({ storage: { engine: 'postgres', postgres: { cluster: { heartbeatMs: 5_000, deadAfterMs: 6_000 } } } })).problems).toEqual([
      'storage.postgres.cluster.deadAfterMs: 6000 must be at least twice storage.postgres.cluster.heartbeatMs (5000), so that one late heartbeat does not make a live instance count as dead',
    ]);
    expect(configError(() => withFile({ storage: { postgres: { cluster: { leaseMs: 1_000 } } } })).problems).toEqual([
      'storage.postgres.cluster.leaseMs: is a setting of the PostgreSQL engine, but storage.engine is embedded; set storage.engine to postgres to use it, or remove it',
    ]);
  });

  it('refuses keys named like object prototype properties, at any depth', () => {
    const file = JSON.parse('{"__proto__": {"x": 1}, "api": {"constructor": 1, "__proto__": {"port": 1}}}') as unknown;
    expect(configError(() => withFile(file)).problems).toEqual([
      '__proto__ (in /etc/junction.json): is not a known setting',
      'api.constructor (in /etc/junction.json): is not a known setting',
      'api.__proto__ (in /etc/junction.json): is not a known setting',
    ]);
  });

  it('names the key, the allowed range and the wrong value', () => {
    const err = configError(() => withFile({ api: { port: '8080' } }));
    expect(err.problems).toEqual(['api.port (in /etc/junction.json): must be an integer between 1 and 65535, not "8080"']);
    expect(configError(() => withFile({ api: { port: 0 } })).problems).toEqual([
      'api.port (in /etc/junction.json): must be an integer between 1 and 65535, not 0',
    ]);
    expect(configError(() => withFile({ logging: { file: { maxFiles: 2.5 } } })).problems).toEqual([
      'logging.file.maxFiles (in /etc/junction.json): must be an integer between 1 and 365, not 2.5',
    ]);
  });

  it('names the allowed values of an enumeration', () => {
    const err = configError(() => withFile({ logging: { level: 'verbose' } }));
    expect(err.problems).toEqual([
      'logging.level (in /etc/junction.json): must be one of "fatal", "error", "warn", "info", "debug", "trace", "silent", not "verbose"',
    ]);
  });

  it('checks booleans strictly in the file (no coercion of "true")', () => {
    const err = configError(() => withFile({ authentication: { enableBasicAuthentication: 'true' } }));
    expect(err.problems).toEqual([
      'authentication.enableBasicAuthentication (in /etc/junction.json): must be true or false, not "true"',
    ]);
  });

  it('reports list problems once per key: unknown items, duplicates, empty lists', () => {
    const allowed = 'must be a non-empty list of distinct values from "basic", "local", "token", "openid"';
    expect(configError(() => withFile({ api: { authenticationTypes: ['basic', 'ldap', 'oauth'] } })).problems).toEqual([
      `api.authenticationTypes (in /etc/junction.json): ${allowed}, not ["basic","ldap","oauth"]`,
    ]);
    expect(configError(() => withFile({ api: { authenticationTypes: ['basic', 'basic'] } })).problems).toEqual([
      `api.authenticationTypes (in /etc/junction.json): ${allowed}, not ["basic","basic"]`,
    ]);
    expect(configError(() => withFile({ api: { authenticationTypes: [] } })).problems).toEqual([
      `api.authenticationTypes (in /etc/junction.json): ${allowed}, not []`,
    ]);
  });

  it('says when a section is not an object', () => {
    expect(configError(() => withFile({ api: 8080 })).problems).toEqual([
      'api (in /etc/junction.json): must be an object of settings, not 8080',
    ]);
  });

  it('needs the file to be a JSON object', () => {
    expect(configError(() => withFile([1, 2])).problems).toEqual([
      '/etc/junction.json: must hold a JSON object of settings, such as {"api": {"port": 8080}}',
    ]);
  });

  it('never echoes a secret from the file', () => {
    const err = configError(() => withFile({ adminPassword: 'hunter2' }));
    expect(err.problems).toEqual(['adminPassword (in /etc/junction.json): must be a string of at least 8 characters']);
    expect(err.message).not.toContain('hunter2');
  });

  it('collects every problem from file, environment and cross-field rules into one error', () => {
    const err = configError(() =>
      withFile(
        { api: { port: 99999, prot: 1 }, logging: { level: 'loud' }, tls: { certFile: '/etc/cert.pem' } },
        { JUNCTION_ROUTER_HTTP_PORT: 'x' },
      ),
    );
    expect(err.problems).toHaveLength(5);
    expect(err.message.split('\n')).toHaveLength(6);
    expect(err.message).toMatch(/^Invalid configuration:\n/);
    for (const needle of ['JUNCTION_ROUTER_HTTP_PORT', 'api.port', 'api.prot', 'logging.level', 'tls.keyFile']) {
      expect(err.message).toContain(needle);
    }
  });

  it('reports a key without a file name when none was given', () => {
    const err = configError(() => resolveConfig({ file: { api: { port: -1 } }, env: {} }));
    expect(err.problems).toEqual(['api.port (in the configuration file): must be an integer between 1 and 65535, not -1']);
  });
});

describe('cross-field rules', () => {
  it('accepts exact origins in api.corsOrigins, from the file or JUNCTION_API_CORS_ORIGINS', () => {
    const origins = ['https://console.example:9000', 'http://localhost:3000', 'https://[::1]:8443'];
    expect(withFile({ api: { corsOrigins: origins } }).config.api.corsOrigins).toEqual(origins);
    expect(withFile({}, { JUNCTION_API_CORS_ORIGINS: 'https://a.example,https://b.example:8443' }).config.api.corsOrigins).toEqual([
      'https://a.example', 'https://b.example:8443',
    ]);
    expect(withFile({}).config.api.corsOrigins).toEqual([]);
  });

  it('refuses an api.corsOrigins entry that is not exactly an origin, saying how to write it', () => {
    const err = configError(() =>
      withFile({ api: { corsOrigins: ['*', 'https://console.example/app', 'https://Console.example:443/', 'ftp://files.example', 'console.example'] } }),
    );
    expect(err.problems).toEqual([
      'api.corsOrigins[0]: "*" has a wildcard; name each console\'s origin exactly, such as https://console.example:9000',
      'api.corsOrigins[1]: "https://console.example/app" is not an origin; write scheme://host[:port] with http or https and no path, such as https://console.example:9000',
      'api.corsOrigins[2]: "https://Console.example:443/" is not written as browsers send it; write "https://console.example" (no path or trailing slash, lower case, no default port)',
      'api.corsOrigins[3]: "ftp://files.example" is not an origin; write scheme://host[:port] with http or https and no path, such as https://console.example:9000',
      'api.corsOrigins[4]: "console.example" is not an origin; write scheme://host[:port] with http or https and no path, such as https://console.example:9000',
    ]);
  });

  it('refuses an unknown time zone, links and gateways that are not http(s) URLs, and half-set email settings', () => {
    expect(withFile({ timeZone: 'Africa/Nairobi' }).config.timeZone).toBe('Africa/Nairobi');
    const err = configError(() =>
      withFile({
        timeZone: 'Mars/Olympus',
        alerts: { consoleURL: 'junction.local:8080' },
        sms: { gatewayUrl: 'ftp://sms.example' },
        email: { smtp: { host: 'smtp.example', password: 'secret-1' } },
      }),
    );
    expect(err.problems).toEqual([
      'timeZone: "Mars/Olympus" is not a time zone; use an IANA name such as Africa/Nairobi or Europe/London, or leave it empty for the system\'s zone',
      'alerts.consoleURL: "junction.local:8080" is not an http or https URL, such as https://junction.clinic.example:8080',
      'sms.gatewayUrl: "ftp://sms.example" is not an http or https URL, such as https://sms.example/api/send',
      'email.smtp.user: must be set when email.smtp.password is set (the login the password belongs to)',
      'email.fromAddress: must be set when email.smtp.host is set (the sender address of every email)',
    ]);
    // The password never appears in what is printed.
    expect(err.message).not.toContain('secret-1');
  });

  it('needs tls.certFile and tls.keyFile together', () => {
    expect(configError(() => withFile({ tls: { certFile: '/etc/cert.pem' } })).problems).toEqual([
      'tls.keyFile: must be set when tls.certFile is set (the private key of that certificate)',
    ]);
    expect(configError(() => withFile({ tls: { keyFile: '/etc/key.pem' } })).problems).toEqual([
      'tls.certFile: must be set when tls.keyFile is set, or clear tls.keyFile to use the generated certificate',
    ]);
    const both = withFile({ tls: { certFile: '/etc/cert.pem', keyFile: '/etc/key.pem' } }).config.tls;
    expect(both).toMatchObject({ certFile: '/etc/cert.pem', keyFile: '/etc/key.pem' });
  });

  it('needs a JWT secret or public key when JWT authentication is on', () => {
    const err = configError(() => withFile({ authentication: { enableJWTAuthentication: true } }));
    expect(err.problems).toEqual([
      'authentication.jwt.secretOrPublicKey: must be set (or JUNCTION_AUTHENTICATION_JWT_SECRET_OR_PUBLIC_KEY / ' +
        'JUNCTION_AUTHENTICATION_JWT_SECRET_OR_PUBLIC_KEY_FILE) when authentication.enableJWTAuthentication is true',
    ]);
    const ok = withFile({ authentication: { enableJWTAuthentication: true, jwt: { secretOrPublicKey: 's3cret' } } });
    expect(ok.config.authentication.jwt.secretOrPublicKey).toBe('s3cret');
  });

  it('needs an https issuer and a client id when OpenID sign-in is on, and a scope with openid', () => {
    const on = (openid: Record<string, unknown>) => withFile({ api: { authenticationTypes: ['local', 'openid'], openid } });
    expect(configError(() => on({})).problems).toEqual([
      'api.openid.issuerUrl: must be set when openid is in api.authenticationTypes (the provider, such as https://sso.clinic.example/realms/clinic)',
      'api.openid.clientId: must be set when openid is in api.authenticationTypes (the client registered for Junction at the provider)',
    ]);
    expect(configError(() => on({ issuerUrl: 'http://sso.clinic.example/realms/clinic', clientId: 'junction', scope: 'email profile' })).problems).toEqual([
      'api.openid.issuerUrl: "http://sso.clinic.example/realms/clinic" must be an https URL (plain http only for a provider on this machine)',
      'api.openid.scope: "email profile" must include openid',
    ]);
    const ok = on({ issuerUrl: 'http://127.0.0.1:9088/realms/clinic', clientId: 'junction' }).config.api.openid;
    expect(ok).toMatchObject({ scope: 'openid email profile', emailClaim: 'email', createUsers: false, displayName: 'OpenID Connect' });
    // Off, the section may stay empty.
    expect(withFile({ api: { openid: {} } }).config.api.authenticationTypes).toEqual(['basic', 'local']);
  });

  it('needs every listening port to be different', () => {
    expect(configError(() => withFile({ router: { httpPort: 8080 } })).problems).toEqual([
      'api.port and router.httpPort are both 8080: every listening port must be different; change one of them',
    ]);
    const three = configError(() => withFile({ api: { port: 5000 }, router: { httpPort: 5000 } }));
    expect(three.problems).toEqual([
      'api.port and router.httpsPort and router.httpPort are all 5000: every listening port must be different; change all but one',
    ]);
  });
});

describe('the audit repository and audit event settings', () => {
  it('loads their defaults, left out or written out', () => {
    const servers = { udp: { enabled: false, port: 5050 }, tls: { enabled: false, port: 5051, requireClientCertificate: true }, tcp: { enabled: false, port: 5052 } };
    const written = withFile({ auditing: { servers }, auditEvents: { interface: 'internal', host: '' } }, { JUNCTION_AUDIT_EVENTS_PORT: '5051' }).config;
    expect(written.auditing.servers).toEqual(servers);
    expect(written.auditEvents).toMatchObject({ interface: 'internal', host: '', port: 5051, auditSourceID: 'Junction' });
    expect(withFile({}).config.auditing).toEqual(written.auditing);
  });

  it('turns listeners on and moves them', () => {
    const config = withFile({ auditing: { servers: { udp: { enabled: true } } } }, { JUNCTION_AUDITING_SERVERS_TLS_PORT: '6514', JUNCTION_AUDITING_SERVERS_TLS_ENABLED: 'true' }).config;
    expect(config.auditing.servers.udp).toEqual({ enabled: true, port: 5050 });
    expect(config.auditing.servers.tls).toMatchObject({ enabled: true, port: 6514 });
  });

  it('counts an enabled TCP or TLS audit listener in the port clash check, a disabled one or the UDP listener not', () => {
    expect(configError(() => withFile({ auditing: { servers: { tcp: { enabled: true, port: 5001 } } } })).problems).toEqual([
      'router.httpPort and auditing.servers.tcp.port are both 5001: every listening port must be different; change one of them',
    ]);
    expect(withFile({ auditing: { servers: { tcp: { port: 5001 }, udp: { enabled: true, port: 5001 } } } }).config.auditing.servers.udp.port).toBe(5001);
  });

  it('needs a host to send audit events to another repository', () => {
    expect(configError(() => withFile({ auditEvents: { interface: 'tcp', port: 6514 } })).problems).toEqual([
      'auditEvents.host: must be set when auditEvents.interface is tcp (the audit repository to send to)',
    ]);
    expect(withFile({ auditEvents: { interface: 'tls', host: 'audit.local', port: 6514 } }).config.auditEvents).toMatchObject({ interface: 'tls', host: 'audit.local' });
  });

  it('says a value of the wrong type is wrong, once', () => {
    expect(configError(() => withFile({ auditing: { servers: { tcp: { port: 'x' } } } })).problems).toEqual([
      'auditing.servers.tcp.port (in /etc/junction.json): must be an integer between 1 and 65535, not "x"',
    ]);
  });

  it('accepts auditEvents.auditSourceID, which every stored audit event carries', () => {
    expect(withFile({ auditEvents: { auditSourceID: 'Clinic A' } }).config.auditEvents.auditSourceID).toBe('Clinic A');
  });
});
