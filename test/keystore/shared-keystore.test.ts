/**
 * The keystore on a database several instances share (issue 20): two keystores, each with its own data folder and a
 * copy of the same secret file, on one real PostgreSQL database. A change made through one reaches the other when it
 * is told to reload, and concurrent changes through both are all kept.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { Keystore } from '../../service/keystore/keystore.js';
import type { KeystoreChange } from '../../service/keystore/keystore.js';
import { generateCertificate } from '../../service/keystore/generate.js';
import type { KeystoreDocumentStore } from '../../service/storage/keystore-document.js';
import { PostgresDatabase, PostgresKeystoreDocument } from '../../service/storage/postgres/index.js';
import { generateSelfSigned } from '../../service/tls/self-signed.js';
import { tempDir } from '../helpers/junction.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';

const silent = pino({ level: 'silent' });
const noTls = { certFile: '', keyFile: '', trustedCAFiles: [] };
let database: Promise<TestDatabase> | undefined;
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  await (await database)?.drop();
});

/** A keystore as one instance opens it: its own data folder, the shared document, the secret given to every instance. */
async function instance(schema: string, secretFile: string, wrap: (d: KeystoreDocumentStore) => KeystoreDocumentStore = (d) => d): Promise<{ keystore: Keystore; document: PostgresKeystoreDocument; dataDir: string }> {
  database ??= createTestDatabase();
  const { url } = await database;
  const dataDir = await tempDir('junction-shared-keystore-');
  const document = new PostgresKeystoreDocument(new PostgresDatabase({ settings: settingsFor(url), logger: silent, schema }));
  await document.open();
  const keystore = await Keystore.open({ dataDir, secretFile, tls: noTls, logger: silent, watchIntervalMs: 0, documents: wrap(document), generate: () => generateSelfSigned('localhost') });
  cleanups.push(async () => {
    keystore.close();
    await document.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  return { keystore, document, dataDir };
}

/** A secret file for the first instance; later ones get copies of it, as an operator would hand them out. */
async function sharedSecret(): Promise<string> {
  const dir = await tempDir('junction-secret-');
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return join(dir, 'keystore.secret');
}

function ca(commonName: string): string {
  return generateCertificate({ type: 'client', commonName, days: 30 }).certificate;
}

describe('the keystore shared through PostgreSQL', () => {
  it('serves the first instance\'s generated pair on the second, and a CA or pair change reaches the other after reload', async () => {
    const schema = newSchemaName();
    const secret = await sharedSecret();
    const a = await instance(schema, secret);
    const b = await instance(schema, secret);
    expect(b.keystore.certificate().fingerprint256).toBe(a.keystore.certificate().fingerprint256);
    expect(b.keystore.certificate().source).toBe('generated');

    const changes: KeystoreChange[] = [];
    b.keystore.onChange((change) => changes.push(change));
    const pem = ca('Shared Clinic CA');
    const answer = await a.keystore.addCAs(pem);
    expect(answer.added).toHaveLength(1);
    expect(b.keystore.listCAs()).toEqual([]);

    expect(await b.keystore.reload()).toBe(true);
    expect(b.keystore.listCAs().map((c) => c.commonName)).toEqual(['Shared Clinic CA']);
    expect(changes).toHaveLength(1);
    expect(changes[0]?.certificateChanged).toBe(false);
    expect(changes[0]?.trustedCAs).toHaveLength(1);
    expect(changes[0]?.trustedCAs).toEqual(a.keystore.trustedCAs());
    // Nothing new: the version is the same, so nothing is read or announced.
    expect(await b.keystore.reload()).toBe(false);
    expect(changes).toHaveLength(1);

    const pair = generateSelfSigned('junction.clinic.example');
    await a.keystore.applyPair(pair.cert, pair.key);
    expect(b.keystore.certificate().fingerprint256).not.toBe(a.keystore.certificate().fingerprint256);
    expect(await b.keystore.reload()).toBe(true);
    expect(b.keystore.certificate().fingerprint256).toBe(a.keystore.certificate().fingerprint256);
    expect(b.keystore.certificate().key).toBe(pair.key);
    expect(changes.at(-1)?.certificateChanged).toBe(true);
    expect(changes.at(-1)?.certificate.cert).toBe(pair.cert);
  });

  it('keeps both of two changes made through different instances without a reload in between', async () => {
    const schema = newSchemaName();
    const secret = await sharedSecret();
    const a = await instance(schema, secret);
    const b = await instance(schema, secret);
    await a.keystore.addCAs(ca('First CA'));
    // b has not reloaded: its change is made on top of the stored document, not its stale copy.
    await b.keystore.addCAs(ca('Second CA'));
    await a.keystore.reload();
    const names = (k: Keystore) => k.listCAs().map((c) => c.commonName).sort();
    expect(names(a.keystore)).toEqual(['First CA', 'Second CA']);
    expect(names(b.keystore)).toEqual(['First CA', 'Second CA']);
    const removed = b.keystore.listCAs().find((c) => c.commonName === 'First CA');
    await a.keystore.removeCA(removed?._id ?? '');
    await b.keystore.reload();
    expect(names(b.keystore)).toEqual(['Second CA']);
  });

  it('answers 409, changing nothing, when another instance writes between its read and its write; the retry keeps both', async () => {
    const schema = newSchemaName();
    const secret = await sharedSecret();
    const a = await instance(schema, secret);
    let interleave: (() => Promise<unknown>) | undefined;
    // b's writes first let a change the document, as if a's request landed in the gap.
    const b = await instance(schema, secret, (d) => ({
      where: d.where,
      read: () => d.read(),
      version: () => d.version(),
      write: async (text, expected) => {
        const run = interleave;
        interleave = undefined;
        await run?.();
        return d.write(text, expected);
      },
    }));
    interleave = () => a.keystore.addCAs(ca('Through A'));
    const refused = b.keystore.addCAs(ca('Through B'));
    await expect(refused).rejects.toMatchObject({ code: 'CONFLICT', status: 409 });
    await expect(refused).rejects.toThrow('changed through another Junction instance at the same moment');
    expect(b.keystore.listCAs()).toEqual([]);
    await b.keystore.addCAs(ca('Through B'));
    await a.keystore.reload();
    expect(a.keystore.listCAs().map((c) => c.commonName).sort()).toEqual(['Through A', 'Through B']);
  });

  it('completes a pair whose certificate was staged through one instance and whose key arrives through another', async () => {
    const schema = newSchemaName();
    const secret = await sharedSecret();
    const a = await instance(schema, secret);
    const b = await instance(schema, secret);
    const pair = generateSelfSigned('staged.clinic.example');
    expect((await a.keystore.uploadCert(pair.cert)).applied).toBe(false);
    expect((await b.keystore.uploadKey(pair.key)).applied).toBe(true);
    await a.keystore.reload();
    expect(a.keystore.certificate().cert).toBe(b.keystore.certificate().cert);
    expect(a.keystore.validity()).toEqual({ valid: true, pending: false });
  });

  it('lets exactly one of two instances starting at once create the keystore; the other serves the same pair', async () => {
    const schema = newSchemaName();
    const secret = await sharedSecret();
    const first = await instance(schema, secret);
    // Both secrets must be the same file's content: the second instance is given a copy.
    const copyDir = await tempDir('junction-secret-copy-');
    cleanups.push(() => rm(copyDir, { recursive: true, force: true }));
    await mkdir(copyDir, { recursive: true });
    const copy = join(copyDir, 'keystore.secret');
    await copyFile(secret, copy);
    const [b, c] = await Promise.all([instance(schema, copy), instance(schema, copy)]);
    const fingerprints = new Set([first, b, c].map((x) => x.keystore.certificate().fingerprint256));
    expect(fingerprints.size).toBe(1);
    const { rows } = await runSql((await database!).url, `SELECT version FROM ${schema}.keystore`);
    expect(rows).toEqual([{ version: '1' }]);
  });

  it('refuses to start an instance given a different secret, or none, saying every instance needs the same one', async () => {
    const schema = newSchemaName();
    await instance(schema, await sharedSecret());
    const missing = await sharedSecret();
    await expect(instance(schema, missing)).rejects.toThrow(/secret file .* is missing.*an instance sharing a database with others needs a copy of theirs/);
    await writeFile(missing, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    await expect(instance(schema, missing)).rejects.toThrow(/keystore the PostgreSQL table s_\w+\.keystore cannot be read with the secret in .*every instance sharing a database needs a copy of the same one/);
  });
});
