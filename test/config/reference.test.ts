import { describe, expect, it } from 'vitest';
import { configReference, configReferenceMarkdown, envNameFor, resolveConfig } from '../../service/config/index.js';

/** Leaf keys found by walking a resolved config, independently of how the reference is built. */
function leafKeys(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [prefix];
  return Object.entries(value).flatMap(([key, child]) => leafKeys(child, prefix === '' ? key : `${prefix}.${key}`));
}

const config = resolveConfig({ env: {}, platform: 'linux', homeDir: '/home/ada' }).config;
const secrets = ['adminPassword', 'tls.keyPassphrase', 'authentication.jwt.secretOrPublicKey', 'email.smtp.password', 'sms.authorization', 'api.openid.clientSecret',
  'storage.postgres.url', 'storage.postgres.password'];

describe('configReference', () => {
  const rows = configReference();

  it('has one row per leaf key of the configuration', () => {
    expect(rows.map((r) => r.key).sort()).toEqual(leafKeys(config).sort());
    expect(rows).toHaveLength(151);
  });

  it('renders defaults as JSON, matching the resolved defaults', () => {
    for (const row of rows) {
      if (row.key === 'dataDir' || secrets.includes(row.key)) continue;
      const value = row.key.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], config);
      expect(JSON.parse(row.default), row.key).toEqual(value);
    }
  });

  it('describes the per-user data folder instead of this machine’s path', () => {
    const dataDir = rows.find((r) => r.key === 'dataDir');
    expect(dataDir?.default).toContain('XDG_DATA_HOME');
    expect(dataDir?.default).toContain('Application Support');
    expect(dataDir?.default).toContain('%APPDATA%');
    expect(dataDir?.default).not.toContain('/home/ada');
  });

  it('shows both variables for secrets, one for the rest', () => {
    for (const row of rows) {
      const env = envNameFor(row.key);
      expect(row.env, row.key).toBe(secrets.includes(row.key) ? `${env} or ${env}_FILE` : env);
      expect(row.description, row.key).not.toBe('');
      expect(row.type, row.key).not.toBe('');
    }
    expect(rows.find((r) => r.key === 'api.port')).toMatchObject({ type: 'integer 1–65535', default: '8080' });
    expect(rows.find((r) => r.key === 'adminPassword')?.type).toContain('secret');
  });
});

describe('keys not available yet', () => {
  it('are none: the PostgreSQL engine\'s keys work once storage.engine chooses it (issue 20)', () => {
    expect(configReference().filter((row) => row.description.includes('Not available yet')).map((row) => row.key)).toEqual([]);
  });
});

describe('configReferenceMarkdown', () => {
  const markdown = configReferenceMarkdown();
  const lines = markdown.trim().split('\n');

  it('is a table with the documented columns and a row per key', () => {
    expect(lines[0]).toBe('| Key | Default | Environment variable | Description |');
    expect(lines[1]).toBe('|---|---|---|---|');
    expect(lines).toHaveLength(2 + configReference().length);
  });

  it('keeps four cells in every row, escaping pipes in allowed values', () => {
    for (const line of lines) expect(line.split(/(?<!\\)\|/).length, line).toBe(6);
    expect(markdown).toContain('https \\| http');
  });

  it('lists each key with its default and variable(s)', () => {
    expect(markdown).toContain('| `api.port` | `8080` | `JUNCTION_API_PORT` |');
    expect(markdown).toContain('`JUNCTION_ADMIN_PASSWORD` or `JUNCTION_ADMIN_PASSWORD_FILE`');
  });
});
