import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../service/config/index.js';

const base = { platform: 'linux' as const, homeDir: '/home/ada' };

describe('precedence: defaults < file < environment', () => {
  it('a file value overrides the default, and untouched siblings keep their defaults', () => {
    const { config } = resolveConfig({ ...base, file: { api: { port: 9090 } }, env: {} });
    expect(config.api.port).toBe(9090);
    expect(config.api.host).toBe('0.0.0.0');
    expect(config.api.loginThrottle.windowSeconds).toBe(900);
    expect(config.router.httpsPort).toBe(5000);
  });

  it('nested file sections merge key by key', () => {
    const { config } = resolveConfig({ ...base, file: { api: { loginThrottle: { windowSeconds: 60 } } }, env: {} });
    expect(config.api.loginThrottle).toEqual({ maxFailuresPerAccount: 10, maxFailuresPerAddress: 50, windowSeconds: 60 });
  });

  it('a file array replaces the default array instead of merging into it', () => {
    const { config } = resolveConfig({ ...base, file: { api: { authenticationTypes: ['token'] } }, env: {} });
    expect(config.api.authenticationTypes).toEqual(['token']);
  });

  it('an environment variable overrides the file', () => {
    const { config } = resolveConfig({
      ...base,
      file: { api: { port: 9090, protocol: 'http' }, logging: { level: 'debug' } },
      env: { JUNCTION_API_PORT: '9443', JUNCTION_LOGGING_LEVEL: 'warn' },
    });
    expect(config.api.port).toBe(9443);
    expect(config.logging.level).toBe('warn');
    expect(config.api.protocol).toBe('http');
  });

  it('an empty environment variable counts as unset', () => {
    const { config } = resolveConfig({ ...base, file: { api: { port: 9090 } }, env: { JUNCTION_API_PORT: '' } });
    expect(config.api.port).toBe(9090);
  });

  it('resolves a relative dataDir against the working directory', () => {
    expect(resolveConfig({ ...base, file: { dataDir: 'var/junction' }, env: {} }).config.dataDir).toBe(
      resolve(process.cwd(), 'var/junction'),
    );
    expect(resolveConfig({ ...base, env: { JUNCTION_DATA_DIR: join('.', 'x') } }).config.dataDir).toBe(
      resolve(process.cwd(), 'x'),
    );
  });

  it('does not freeze or change the object passed in as the file', () => {
    const file = { api: { authenticationTypes: ['basic'] } };
    resolveConfig({ ...base, file, env: {} });
    expect(Object.isFrozen(file.api.authenticationTypes)).toBe(false);
    expect(file).toEqual({ api: { authenticationTypes: ['basic'] } });
  });
});
