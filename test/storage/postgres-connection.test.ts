/** The `storage.postgres` settings as the pool sees them. */
import { describe, expect, it } from 'vitest';
import { poolConfig } from '../../service/storage/postgres/connection.js';
import type { PostgresSettings } from '../../service/storage/postgres/connection.js';
import { StoreError } from '../../service/storage/store.js';

const defaults: PostgresSettings = { host: 'db.clinic', port: 5433, database: 'hie', user: 'junction', password: 's3cret', poolSize: 7, tls: { enabled: false, caFile: '' } };
const noFile = (): Buffer => {
  throw new Error('ENOENT: no such file');
};

describe('PostgreSQL connection settings', () => {
  it('uses the parts when no URL is given, with the pool size and the schema as search path', () => {
    expect(poolConfig(defaults, 'public', noFile)).toMatchObject({
      host: 'db.clinic', port: 5433, database: 'hie', user: 'junction', password: 's3cret', max: 7, ssl: false, options: '-c search_path=public',
    });
  });

  it('takes everything from the URL when one is given, decoding escaped characters', () => {
    const config = poolConfig({ ...defaults, url: 'postgresql://app%40x:p%2Fw@[::1]:6000/junction%20db' }, 'public', noFile);
    expect(config).toMatchObject({ host: '::1', port: 6000, database: 'junction db', user: 'app@x', password: 'p/w' });
    expect(poolConfig({ ...defaults, url: 'postgres://h/db' }, 'public', noFile)).toMatchObject({ host: 'h', port: 5432, database: 'db' });
  });

  it('refuses a URL that is not a postgres URL, names no database, or carries query parameters', () => {
    for (const [url, problem] of [
      ['not a url', 'is not a URL'],
      ['mysql://h/db', 'has the scheme mysql: instead of postgres:'],
      ['postgres://h/', 'names no database'],
      ['postgres://h/db?sslmode=disable', 'has query parameters (TLS is set by storage.postgres.tls.*)'],
    ]) {
      expect(() => poolConfig({ ...defaults, url }, 'public', noFile)).toThrow(new StoreError(`storage.postgres.url ${problem}; write postgres://user:password@host:port/database`));
    }
  });

  it('verifies the server certificate over TLS, with the CA file when one is named', () => {
    expect(poolConfig({ ...defaults, tls: { enabled: true, caFile: '' } }, 'public', noFile).ssl).toEqual({ rejectUnauthorized: true });
    const ca = Buffer.from('-----BEGIN CERTIFICATE-----');
    expect(poolConfig({ ...defaults, tls: { enabled: true, caFile: '/etc/ca.pem' } }, 'public', () => ca).ssl).toEqual({ rejectUnauthorized: true, ca });
    expect(() => poolConfig({ ...defaults, tls: { enabled: true, caFile: '/nope.pem' } }, 'public', noFile)).toThrow('storage.postgres.tls.caFile: cannot read /nope.pem: ENOENT: no such file');
  });

  it('refuses a schema name that is not a plain identifier', () => {
    expect(() => poolConfig(defaults, 'x; DROP TABLE users', noFile)).toThrow(StoreError);
  });
});
