import { describe, expect, it } from 'vitest';
import { configReference, envNameFor, resolveConfig } from '../../service/config/index.js';
import { configError, tempFiles } from './helpers.js';

const base = { platform: 'linux' as const, homeDir: '/home/ada' };
const withEnv = (env: Record<string, string>, file?: unknown) => resolveConfig({ ...base, env, file });

describe('envNameFor', () => {
  it.each([
    ['dataDir', 'JUNCTION_DATA_DIR'],
    ['adminPassword', 'JUNCTION_ADMIN_PASSWORD'],
    ['api.port', 'JUNCTION_API_PORT'],
    ['api.loginThrottle.maxFailuresPerAccount', 'JUNCTION_API_LOGIN_THROTTLE_MAX_FAILURES_PER_ACCOUNT'],
    ['authentication.enableJWTAuthentication', 'JUNCTION_AUTHENTICATION_ENABLE_JWT_AUTHENTICATION'],
    ['authentication.enableMutualTLSAuthentication', 'JUNCTION_AUTHENTICATION_ENABLE_MUTUAL_TLS_AUTHENTICATION'],
    ['auditEvents.auditSourceID', 'JUNCTION_AUDIT_EVENTS_AUDIT_SOURCE_ID'],
    ['logging.file.maxSizeMB', 'JUNCTION_LOGGING_FILE_MAX_SIZE_MB'],
    ['router.httpsPort', 'JUNCTION_ROUTER_HTTPS_PORT'],
  ])('%s -> %s', (key, name) => {
    expect(envNameFor(key)).toBe(name);
  });

  it('gives every key a distinct name, none clashing with a secret _FILE variant', () => {
    const names = configReference().flatMap((row) => row.env.split(' or '));
    expect(new Set(names).size).toBe(names.length);
  });
});

describe('environment parsing by type', () => {
  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['yes', true],
    ['Yes', true],
    ['false', false],
    ['False', false],
    ['0', false],
    ['no', false],
    ['NO', false],
  ])('boolean %j -> %s', (raw, value) => {
    expect(withEnv({ JUNCTION_AUTHENTICATION_ENABLE_BASIC_AUTHENTICATION: raw }).config.authentication.enableBasicAuthentication).toBe(
      value,
    );
  });

  it('rejects a boolean that is not one of the accepted words, naming the variable, key and choices', () => {
    const err = configError(() => withEnv({ JUNCTION_LOGGING_FILE_ENABLED: 'maybe' }));
    expect(err.problems).toEqual([
      'JUNCTION_LOGGING_FILE_ENABLED="maybe" (logging.file.enabled): must be true or false (1/0 and yes/no also work)',
    ]);
  });

  it('parses whole decimal integers', () => {
    expect(withEnv({ JUNCTION_API_PORT: '9443' }).config.api.port).toBe(9443);
    expect(withEnv({ JUNCTION_API_BODY_LIMIT_BYTES: '1048576' }).config.api.bodyLimitBytes).toBe(1048576);
  });

  it.each(['abc', '12.5', '0x1F', '1e3', '80 80'])('rejects the integer %j, saying what is allowed', (raw) => {
    const err = configError(() => withEnv({ JUNCTION_API_PORT: raw }));
    expect(err.problems).toEqual([`JUNCTION_API_PORT=${JSON.stringify(raw)} (api.port): must be an integer between 1 and 65535`]);
  });

  it('reports an out-of-range integer against the variable that set it', () => {
    const err = configError(() => withEnv({ JUNCTION_API_PORT: '70000' }, { api: { port: 9000 } }));
    expect(err.problems).toEqual(['JUNCTION_API_PORT="70000" (api.port): must be an integer between 1 and 65535']);
  });

  it('accepts a comma-separated list or a JSON array for list keys', () => {
    expect(withEnv({ JUNCTION_API_AUTHENTICATION_TYPES: 'basic, token' }).config.api.authenticationTypes).toEqual(['basic', 'token']);
    expect(withEnv({ JUNCTION_API_AUTHENTICATION_TYPES: '["local"]' }).config.api.authenticationTypes).toEqual(['local']);
    expect(withEnv({ JUNCTION_AUTHENTICATION_JWT_AUDIENCE: 'a,b,,c' }).config.authentication.jwt.audience).toEqual(['a', 'b', 'c']);
  });

  it('rejects a malformed JSON array and an item that is not allowed', () => {
    const err = configError(() =>
      withEnv({ JUNCTION_API_AUTHENTICATION_TYPES: '["basic",', JUNCTION_AUTHENTICATION_JWT_ALGORITHMS: 'HS256,none' }),
    );
    expect(err.problems).toHaveLength(2);
    expect(err.problems[0]).toBe(
      'JUNCTION_API_AUTHENTICATION_TYPES="[\\"basic\\"," (api.authenticationTypes): must be a JSON array or a comma-separated list: ' +
        'a non-empty list of distinct values from "basic", "local", "token", "openid"',
    );
    expect(err.problems[1]).toMatch(/^JUNCTION_AUTHENTICATION_JWT_ALGORITHMS="HS256,none" \(authentication\.jwt\.algorithms\): must be a non-empty list of distinct values from "HS256", .*"EdDSA"$/);
  });

  it('takes strings verbatim and checks enumerations against their allowed values', () => {
    expect(withEnv({ JUNCTION_API_HOST: '127.0.0.1' }).config.api.host).toBe('127.0.0.1');
    expect(withEnv({ JUNCTION_API_PROTOCOL: 'http' }).config.api.protocol).toBe('http');
    const err = configError(() => withEnv({ JUNCTION_API_PROTOCOL: 'ftp' }));
    expect(err.problems).toEqual(['JUNCTION_API_PROTOCOL="ftp" (api.protocol): must be one of "https", "http"']);
  });

  it('sets secrets from the variable', () => {
    expect(withEnv({ JUNCTION_ADMIN_PASSWORD: 'correct horse' }).config.adminPassword).toBe('correct horse');
  });

  it('never echoes a secret value in a message', () => {
    const err = configError(() => withEnv({ JUNCTION_ADMIN_PASSWORD: 'short' }));
    expect(err.problems).toEqual(['JUNCTION_ADMIN_PASSWORD (adminPassword): must be a string of at least 8 characters']);
    expect(err.message).not.toContain('short');
  });
});

describe('secrets from files (<VAR>_FILE)', () => {
  const files = tempFiles();

  it('reads the file, trimming trailing newlines only', () => {
    const path = files.write('password', '  spaced password \r\n\n');
    expect(withEnv({ JUNCTION_ADMIN_PASSWORD_FILE: path }).config.adminPassword).toBe('  spaced password ');
    const pem = files.write('key.pem', '-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----\n');
    const { config } = withEnv({
      JUNCTION_AUTHENTICATION_ENABLE_JWT_AUTHENTICATION: 'true',
      JUNCTION_AUTHENTICATION_JWT_SECRET_OR_PUBLIC_KEY_FILE: pem,
      JUNCTION_TLS_KEY_PASSPHRASE_FILE: files.write('passphrase', 'pass\n'),
    });
    expect(config.authentication.jwt.secretOrPublicKey).toBe('-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----');
    expect(config.tls.keyPassphrase).toBe('pass');
  });

  it('overrides a value from the config file', () => {
    const path = files.write('password2', 'from-the-file\n');
    expect(withEnv({ JUNCTION_ADMIN_PASSWORD_FILE: path }, { adminPassword: 'from-config' }).config.adminPassword).toBe('from-the-file');
  });

  it('refuses both the variable and its _FILE', () => {
    const path = files.write('password3', 'another password');
    const err = configError(() => withEnv({ JUNCTION_ADMIN_PASSWORD: 'a password', JUNCTION_ADMIN_PASSWORD_FILE: path }));
    expect(err.problems).toEqual([
      'JUNCTION_ADMIN_PASSWORD and JUNCTION_ADMIN_PASSWORD_FILE are both set (adminPassword): set only one of them',
    ]);
  });

  it('names an unreadable file', () => {
    const missing = `${files.dir}/no-such-file`;
    const err = configError(() => withEnv({ JUNCTION_TLS_KEY_PASSPHRASE_FILE: missing }));
    expect(err.problems).toEqual([
      `JUNCTION_TLS_KEY_PASSPHRASE_FILE=${JSON.stringify(missing)} (tls.keyPassphrase): cannot read the file: the file does not exist`,
    ]);
    const folder = configError(() => withEnv({ JUNCTION_ADMIN_PASSWORD_FILE: files.dir }));
    expect(folder.problems[0]).toContain('it is a folder, not a file');
  });

  it('validates the file content like any value, without echoing it', () => {
    const path = files.write('short', 'tiny\n');
    const err = configError(() => withEnv({ JUNCTION_ADMIN_PASSWORD_FILE: path }));
    expect(err.problems).toEqual([
      `JUNCTION_ADMIN_PASSWORD_FILE=${JSON.stringify(path)} (adminPassword): must be a string of at least 8 characters`,
    ]);
    expect(err.message).not.toContain('tiny');
  });
});

describe('unknown JUNCTION_ variables', () => {
  it('are warnings, with a suggestion when one is close', () => {
    const { warnings } = withEnv({ JUNCTION_API_PROT: '1', JUNCTION_SOMETHING_ELSE: 'x', PATH: '/bin', HOME: '/home/ada' });
    expect(warnings).toEqual([
      'JUNCTION_API_PROT is not a Junction setting and is ignored; did you mean JUNCTION_API_PORT?',
      'JUNCTION_SOMETHING_ELSE is not a Junction setting and is ignored',
    ]);
  });

  it('include _FILE on a key that is not a secret, and lower-case names', () => {
    const { config, warnings } = withEnv({ JUNCTION_API_PORT_FILE: '/tmp/port', junction_api_port: '1234' });
    expect(config.api.port).toBe(8080);
    expect(warnings).toEqual([
      'JUNCTION_API_PORT_FILE is not a Junction setting and is ignored; did you mean JUNCTION_API_PORT?',
      'junction_api_port is not a Junction setting and is ignored; did you mean JUNCTION_API_PORT?',
    ]);
  });

  it('exclude JUNCTION_CONFIG, known names and secret _FILE variants', () => {
    const vars = { JUNCTION_CONFIG: '/etc/junction.json', JUNCTION_API_PORT: '8081', JUNCTION_TLS_KEY_PASSPHRASE_FILE: '' };
    expect(withEnv(vars).warnings).toEqual([]);
  });
});
