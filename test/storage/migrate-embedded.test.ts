/**
 * The one-shot migration of an embedded data folder (issue 20). The source is a folder a real Junction made, given
 * channels, a job state, 100,000 transactions seeded straight through SQLite (as the log-scale bench seeds them),
 * bodies in bodies.sqlite and as files, and audits. The configuration and the keystore go into a real PostgreSQL;
 * the transaction log, bodies and audits go, through the same interfaces, into a second embedded folder (the
 * PostgreSQL log engines are merged separately; this test is then pointed at them).
 */
import { Readable } from 'node:stream';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { ALERT_JOB_NAME } from '../../service/alerts/alert-job.js';
import { Keystore } from '../../service/keystore/keystore.js';
import { runMigrateCommand } from '../../service/migrate/cli.js';
import { openEmbeddedFolder } from '../../service/migrate/embedded-folder.js';
import { postgresLogTargets } from '../../service/storage/postgres/migration-targets.js';
import type { LogTargets } from '../../service/storage/postgres/migration-targets.js';
import type { OpenFolder } from '../../service/migrate/embedded-folder.js';
import type { NewAudit } from '../../service/storage/audits.js';
import type { Bodies, BodyRef } from '../../service/storage/bodies/bodies.js';
import { ALERT_JOB_STATE, migrateInstallation, MigrationRefusedError } from '../../service/storage/migrate-embedded.js';
import type { BodyTarget, InstallationStores, MigrationCounts } from '../../service/storage/migrate-embedded.js';
import { createPostgresStore, PostgresDatabase, PostgresKeystoreDocument } from '../../service/storage/postgres/index.js';
import type { Store } from '../../service/storage/store.js';
import { newTransactionId } from '../../service/storage/transaction-ids.js';
import type { TransactionRecord } from '../../service/storage/transactions.js';
import { seedFast } from '../bench/scenarios/log-scale.js';
import { startJunction, tempDir } from '../helpers/junction.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';

const silent = pino({ level: 'silent' });
const SEEDED = 100_000;
const dirs: string[] = [];
let database: Promise<TestDatabase> | undefined;

afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
  await (await database)?.drop();
});

async function folder(prefix: string): Promise<string> {
  const dir = await tempDir(prefix);
  dirs.push(dir);
  return dir;
}

async function testDatabaseUrl(): Promise<string> {
  database ??= createTestDatabase();
  return (await database).url;
}

function loginAudit(i: number): NewAudit {
  return {
    eventIdentification: {
      eventDateTime: new Date(Date.UTC(2026, 9, 1) + i * 60_000),
      eventOutcomeIndicator: i % 5 === 0 ? '4' : '0',
      eventActionCode: 'E',
      eventID: { code: '110114', displayName: 'UserAuthenticated', codeSystemName: 'DCM' },
      eventTypeCode: { code: '110122', displayName: 'Login', codeSystemName: 'DCM' },
    },
    activeParticipant: [{ userID: `user-${i % 7}`, userIsRequestor: 'true', networkAccessPointID: '10.0.0.1', networkAccessPointTypeCode: '2' }],
    auditSourceIdentification: { auditSourceID: 'clinic-emr' },
    participantObjectIdentification: [],
  };
}

/** Writes a body through the folder's body engine, as the pipeline would. */
async function storeBody(source: OpenFolder, day: string, channelId: string, bodyId: string, data: Buffer): Promise<BodyRef> {
  const sink = source.bodies.sink({ day, channelId, bodyId, capBytes: Number.MAX_SAFE_INTEGER });
  Readable.from([data]).pipe(sink.stream);
  return sink.done;
}

async function bodyBytes(bodies: OpenFolder['bodies'] | Bodies, ref: BodyRef): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await bodies.openRead(ref)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A data folder made by a real Junction (first-run admin, keystore, start audit), then filled through its engines. */
async function sourceFolder(): Promise<{ dataDir: string; channelIds: string[]; routed: TransactionRecord; large: Buffer; fingerprint: string }> {
  const dataDir = await folder('junction-migrate-source-');
  const junction = await startJunction({}, { dataDir });
  const fingerprint = junction.junction.keystore.certificate().fingerprint256;
  await junction.stop();

  const source = await openEmbeddedFolder(dataDir, silent);
  try {
    const channelIds: string[] = [];
    for (const name of ['lab results', 'pharmacy', 'referrals']) {
      const channel = await source.store.channels.insert({ name, urlPattern: `^/${name.replace(' ', '-')}/.*$`, status: 'enabled', routes: [], allow: [], authType: 'private' } as never);
      channelIds.push(channel._id);
    }
    // The source's alert cursor, into its own finished entries (the real start has saved one already, or not yet).
    const alertState = { data: { lastSeq: 123_456, lastEnd: '2026-11-01T00:00:00.000Z' }, updated: new Date() };
    const saved = await source.store.jobStates.findOne({ name: ALERT_JOB_NAME });
    if (saved === null) await source.store.jobStates.insert({ name: ALERT_JOB_NAME, ...alertState });
    else await source.store.jobStates.updateById(saved._id, { set: alertState });
    for (let i = 0; i < 1_200; i++) await source.audits.add(loginAudit(i));

    // One transaction after the seeded ones with a request body too large for bodies.sqlite (a file) and a route
    // whose response body is small, and one whose body was removed by retention before the migration.
    const at = new Date(Date.UTC(2026, 10, 20, 12));
    const day = at.toISOString().slice(0, 10);
    const channelID = channelIds[0] ?? '';
    const id = newTransactionId(at);
    const large = Buffer.alloc(300_000, 'large HL7 batch ');
    const requestBody = await storeBody(source, day, channelID, `${id}-req`, large);
    const routeBody = await storeBody(source, day, channelID, `${id}-route-res`, Buffer.from('{"ok":true}'));
    const routed: TransactionRecord = {
      _id: id, channelID, clientIP: '10.0.0.9', status: 'Successful', canRerun: true, autoRetry: false, autoRetryAttempt: 0,
      request: { path: '/lab-results/batch', querystring: '', method: 'POST', headers: { 'content-type': 'text/plain' }, timestamp: at, body: requestBody },
      response: { status: 200, headers: {}, timestamp: new Date(at.getTime() + 40) },
      routes: [{ name: 'archive', request: { path: '/archive', querystring: '', method: 'POST', headers: {}, timestamp: at }, response: { status: 200, headers: {}, timestamp: at, body: routeBody } }],
      orchestrations: [],
    };
    await source.transactions.insert(routed);
    const goneAt = new Date(at.getTime() + 1000);
    const goneId = newTransactionId(goneAt);
    await source.transactions.insert({ ...routed, _id: goneId, routes: [], request: { ...routed.request, timestamp: goneAt, body: { path: `${day}/${channelID}/${goneId}-req`, size: 10, receivedBytes: 10, truncated: false } } });
    await source.close();
    // Straight through SQLite, as the log-scale bench seeds a large log: a month ending before the two above.
    await seedFast(dataDir, channelIds, SEEDED, 30, Date.UTC(2026, 10, 19));
    return { dataDir, channelIds, routed, large, fingerprint };
  } catch (err) {
    await source.close();
    throw err;
  }
}

/** The PostgreSQL configuration store and keystore in a schema of their own, and a second folder's log engines. */
async function target(): Promise<{ stores: InstallationStores<BodyTarget> & { store: Store }; logs: LogTargets; keystore: PostgresKeystoreDocument; close: () => Promise<void> }> {
  const url = await testDatabaseUrl();
  const schema = newSchemaName();
  const db = new PostgresDatabase({ settings: settingsFor(url), logger: silent, schema });
  const store = createPostgresStore(db);
  await store.open();
  const keystore = new PostgresKeystoreDocument(db);
  await keystore.open();
  const logs = postgresLogTargets(db, silent);
  await logs.open();
  return {
    stores: { store, keystore, transactions: logs.transactions, bodies: logs.bodies, audits: logs.audits },
    logs,
    keystore,
    close: async () => {
      await logs.close();
      await keystore.close();
      await store.close();
    },
  };
}

describe('migrating an embedded data folder', () => {
  it('copies 100,000 transactions with their bodies, the audits, the configuration and the keystore, keeping ids, and refuses a second run', async () => {
    const made = await sourceFolder();
    const source = await openEmbeddedFolder(made.dataDir, silent);
    const into = await target();
    try {
      const stages: string[] = [];
      const counts = await migrateInstallation(source, into.stores, { batchSize: 1_000, onProgress: (stage) => stages.push(stage) });
      const sourceTotal = await source.transactions.count({});
      expect(sourceTotal).toBe(SEEDED + 2);
      expect(counts).toMatchObject<Partial<MigrationCounts>>({
        keystore: true,
        transactions: sourceTotal,
        // seedFast stores both bodies of one transaction in ten, but two of those are among the 20 it leaves
        // Processing, whose documents have no response (so only the request body is referred to); the routed
        // transaction adds two.
        bodies: (SEEDED / 10) * 2 - 2 + 2,
        bodiesMissing: 1,
      });
      let sourceAudits = 0;
      for await (const _ of source.audits.stream({})) sourceAudits += 1;
      // The 1,200 added and the real start's own audit events.
      expect(sourceAudits).toBeGreaterThan(1_200);
      expect(counts.audits).toBe(sourceAudits);
      // Streamed in batches: one progress report per 1,000 transactions, not one at the end.
      expect(stages.filter((s) => s === 'transactions').length).toBeGreaterThanOrEqual(Math.floor(sourceTotal / 1_000));
      expect(stages.at(-1)).toBe('done');

      // Configuration: every collection's documents, ids and all.
      for (const [name, n] of Object.entries(counts.collections)) {
        const from = await (source.store as unknown as Record<string, { find(f: object, o: object): Promise<unknown[]> }>)[name]?.find({}, { sort: { _id: 1 } });
        const to = await (into.stores.store as unknown as Record<string, { find(f: object, o: object): Promise<unknown[]> }>)[name]?.find({}, { sort: { _id: 1 } });
        // The alert cursor alone differs, on purpose (checked below).
        const withoutCursor = (docs: unknown[] | undefined) => docs?.map((d) => ((d as { name?: string }).name === ALERT_JOB_STATE && name === 'jobStates' ? { ...(d as object), data: { ...(d as { data: object }).data, lastSeq: 0 } } : d));
        expect(withoutCursor(to), name).toEqual(withoutCursor(from));
        expect(n, name).toBe(from?.length);
      }
      expect(counts.collections.users).toBe(1);
      expect(counts.collections.channels).toBe(3);

      // The transaction log: the same count, the same newest and oldest pages, a channel's filtered count.
      expect(await into.stores.transactions.count({})).toBe(sourceTotal);
      expect(await into.stores.transactions.page({}, { limit: 50 })).toEqual(await source.transactions.page({}, { limit: 50 }));
      expect(await into.stores.transactions.page({}, { limit: 20, skip: sourceTotal - 20 })).toEqual(await source.transactions.page({}, { limit: 20, skip: sourceTotal - 20 }));
      const filter = { channelID: [made.channelIds[1] ?? ''], status: ['Failed' as const] };
      expect(await into.stores.transactions.count(filter)).toBe(await source.transactions.count(filter));
      expect(await into.stores.transactions.days()).toEqual(await source.transactions.days());

      // Bodies: the large file and the route's small body read back byte for byte; a seeded small one too.
      const copied = await into.stores.transactions.get(made.routed._id);
      expect(copied).toEqual(made.routed);
      expect((await bodyBytes((into.logs.bodies as Bodies), made.routed.request.body as BodyRef)).equals(made.large)).toBe(true);
      expect((await bodyBytes((into.logs.bodies as Bodies), made.routed.routes[0]?.response?.body as BodyRef)).toString()).toBe('{"ok":true}');
      const seededWithBody = (await source.transactions.page({ from: new Date(Date.UTC(2026, 10, 1)), to: new Date(Date.UTC(2026, 10, 19)) }, { limit: 100 })).find((t) => t.request.body !== undefined);
      expect(seededWithBody).toBeDefined();
      const ref = seededWithBody?.request.body as BodyRef;
      expect(await bodyBytes((into.logs.bodies as Bodies), ref)).toEqual(await bodyBytes(source.bodies, ref));

      // Metric buckets are rebuilt from the copied transactions, one request per finished transaction.
      const finished = sourceTotal - (await source.transactions.count({ status: ['Processing'] }));
      const buckets = await into.stores.transactions.metrics({ period: 'day', from: new Date(0), to: new Date(Date.UTC(2030, 0, 1)) });
      expect(buckets.reduce((sum, b) => sum + b.requests, 0)).toBe(finished);

      // Audits, ids kept.
      expect(await into.stores.audits.page({}, { skip: 0, limit: 50 })).toEqual(await source.audits.page({}, { skip: 0, limit: 50 }));
      // The codes seen, whatever order each engine lists them in.
      const sorted = (seen: object) => Object.fromEntries(Object.entries(seen).map(([k, v]) => [k, (v as unknown[]).map((c) => JSON.stringify(c)).sort()]));
      expect(sorted(await into.stores.audits.codesSeen())).toEqual(sorted(await source.audits.codesSeen()));

      // The alert job's cursor now points past the copied history, so it is not alerted on again.
      const alertState = await into.stores.store.jobStates.findOne({ name: ALERT_JOB_STATE });
      expect(alertState?.data.lastSeq).toBe(await into.stores.transactions.lastFinishedSeq());
      expect(alertState?.data.lastSeq).toBeGreaterThanOrEqual(finished);
      expect(alertState?.data.lastEnd).toBe('2026-11-01T00:00:00.000Z');

      // The keystore: an instance on the database with the source's secret serves the same pair.
      const instanceDir = await folder('junction-migrate-instance-');
      const keystore = await Keystore.open({ dataDir: instanceDir, secretFile: join(made.dataDir, 'keystore.secret'), tls: { certFile: '', keyFile: '', trustedCAFiles: [] }, logger: silent, watchIntervalMs: 0, documents: into.keystore });
      expect(keystore.certificate().fingerprint256).toBe(made.fingerprint);
      keystore.close();

      // A second run finds everything occupied and writes nothing.
      const before = await into.stores.transactions.count({});
      const again = migrateInstallation(source, into.stores);
      await expect(again).rejects.toBeInstanceOf(MigrationRefusedError);
      await expect(again).rejects.toThrow(/already holds users \(1 documents\), channels \(3 documents\).*the keystore, the transaction log, bodies, audits; nothing was copied/);
      expect(await into.stores.transactions.count({})).toBe(before);
    } finally {
      await source.close();
      await into.close();
    }
  }, 600_000);

  it('refuses a target whose only content is a keystore, writing no configuration', async () => {
    const dataDir = await folder('junction-migrate-small-');
    const junction = await startJunction({}, { dataDir });
    await junction.stop();
    const source = await openEmbeddedFolder(dataDir, silent);
    const into = await target();
    try {
      await into.keystore.write('{"version":1,"ca":[]}\n', null);
      await expect(migrateInstallation(source, into.stores)).rejects.toThrow('The target already holds the keystore; nothing was copied.');
      expect(await into.stores.store.users.count({})).toBe(0);
      expect(await into.stores.transactions.count({})).toBe(0);
    } finally {
      await source.close();
      await into.close();
    }
  }, 120_000);
});

describe('junction migrate-to-postgres', () => {
  it('checks its arguments, then copies a folder into PostgreSQL and reports counts', async () => {
    const url = await testDatabaseUrl();
    const lines: string[] = [];
    const output = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(`ERR ${l}`) };

    expect(await runMigrateCommand(['--from', '/nowhere'], output)).toBe(64);
    expect(lines.at(-1)).toContain('usage: junction migrate-to-postgres --from <data folder> --to');
    expect(await runMigrateCommand(['--from', '/nowhere', '--to', url], output)).toBe(64);
    expect(lines.at(-1)).toBe('ERR /nowhere is not a Junction data folder (it has no users.db); name the folder with --from');

    const dataDir = await folder('junction-migrate-cli-');
    const junction = await startJunction({}, { dataDir });
    await junction.stop();
    lines.length = 0;
    const code = await runMigrateCommand(['--from', dataDir, '--to', url], output, { logger: silent });
    expect(lines.filter((l) => l.startsWith('ERR'))).toEqual([]);
    expect(code).toBe(0);
    expect(lines).toContain('  keystore: copied (still sealed)');
    expect(lines.some((l) => /^ {2}configuration: users 1/.test(l))).toBe(true);
    expect(lines.some((l) => /^ {2}audits: [1-9]/.test(l))).toBe(true);
    expect(lines.some((l) => l.includes(`${join(dataDir, 'keystore.secret')}`))).toBe(true);
    expect((await runSql(url, 'SELECT count(*)::int AS n FROM public.store_users')).rows).toEqual([{ n: 1 }]);
    expect((await runSql(url, 'SELECT count(*)::int AS n FROM public.keystore')).rows).toEqual([{ n: 1 }]);
    // The start's own audit events went into the PostgreSQL audit log.
    expect(((await runSql(url, 'SELECT count(*)::int AS n FROM public.audits')).rows[0] as { n: number }).n).toBeGreaterThan(0);
  }, 120_000);
});
