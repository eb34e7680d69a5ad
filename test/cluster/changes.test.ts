/**
 * Change notices and the live feed between instances on one PostgreSQL database, simulated in one process: each
 * instance has its own pool, store and listening connection, as separate processes would.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeChange, encodeChange } from '../../service/cluster/change-bus.js';
import { openCluster } from '../../service/cluster/index.js';
import type { Cluster, Invalidations } from '../../service/cluster/index.js';
import type { ChangeKind } from '../../service/cluster/change-bus.js';
import { LiveEvents } from '../../service/events/live.js';
import type { CompletionDetail, TransactionEvent } from '../../service/events/live.js';
import { PrometheusMetrics } from '../../service/metrics/prometheus.js';
import { ChannelCache } from '../../service/pipeline/channel-cache.js';
import { createPostgresStore, PostgresDatabase, postgresClusterBackend } from '../../service/storage/postgres/index.js';
import type { ChannelRecord } from '../../service/storage/records.js';
import type { Store } from '../../service/storage/store.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { until } from '../helpers/wait.js';

const silent = pino({ level: 'silent' });

let created = Date.UTC(2026, 0, 1);
function channel(name: string): Omit<ChannelRecord, '_id'> {
  const now = new Date((created += 1000));
  return {
    name, type: 'http', urlPattern: '^/.*$', methods: [], status: 'enabled', authType: 'public', allow: [], whitelist: [], matchContentTypes: [],
    requestBody: true, responseBody: true, autoRetryEnabled: false, autoRetryPeriodMinutes: 60, rewriteUrls: false, addAutoRewriteRules: true,
    rewriteUrlsConfig: [], txViewAcl: [], txViewFullAcl: [], txRerunAcl: [], alerts: [], properties: [],
    routes: [{ name: 'r', type: 'http', host: '127.0.0.1', port: 1, primary: true, secured: false, forwardAuthHeader: false, status: 'enabled', waitPrimaryResponse: false }],
    createdAt: now, updatedAt: now,
  };
}

interface Instance {
  name: string;
  cluster: Cluster;
  store: Store;
  events: LiveEvents;
  cache: ChannelCache;
  /** Every refresh this instance ran, by kind, with the ids it was given. */
  refreshed: { kind: ChangeKind; ids: readonly string[] | null }[];
  database: PostgresDatabase;
}

describe('change notices and the live feed between instances on PostgreSQL', () => {
  let db: TestDatabase;
  const running: Instance[] = [];
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    for (const i of running) {
      await i.cluster.stop();
      await i.store.close();
    }
    await db.drop();
  });

  async function instance(schema: string, name: string, extra: Invalidations = {}): Promise<Instance> {
    const database = new PostgresDatabase({ settings: settingsFor(db.url), logger: silent, schema });
    const engine = createPostgresStore(database);
    await engine.open();
    const events = new LiveEvents();
    const refreshed: Instance['refreshed'] = [];
    const cache = new ChannelCache(engine.channels);
    const record = (kind: ChangeKind) => (ids: readonly string[] | null): void => void refreshed.push({ kind, ids });
    const cluster = await openCluster({
      backend: postgresClusterBackend(database), identity: { name, version: '1.0.0' }, events, logger: silent, id: name, onInstanceDead: () => Promise.resolve(),
      invalidations: {
        channels: (ids) => {
          cache.invalidate();
          record('channels')(ids);
        },
        clients: record('clients'), users: record('users'), mediators: record('mediators'), contactGroups: record('contactGroups'), keystore: record('keystore'),
        ...extra,
      },
    });
    const store = cluster.announce(engine);
    const made = { name, cluster, store, events, cache, refreshed, database };
    running.push(made);
    return made;
  }

  it('applies a channel written through one instance on every other, and not again on the writer', async () => {
    const schema = newSchemaName();
    const [a, b, c] = [await instance(schema, 'a'), await instance(schema, 'b'), await instance(schema, 'c')];
    expect(await b.cache.enabled()).toEqual([]);
    const written = await a.store.channels.insert(channel('lab results'));
    for (const other of [b, c]) {
      await until(`${other.name} to refresh its channels`, () => (other.refreshed.length > 0 ? true : undefined));
      expect(other.refreshed).toEqual([{ kind: 'channels', ids: [written._id] }]);
    }
    // b's channel cache, loaded before the write, now serves the new channel.
    expect((await b.cache.enabled()).map((ch) => ch.name)).toEqual(['lab results']);
    await b.store.channels.updateById(written._id, { set: { status: 'disabled' } });
    await until('c to see the channel disabled', () => (c.refreshed.length === 2 ? true : undefined));
    await until('a to see the channel disabled', () => (a.refreshed.length === 1 ? true : undefined));
    expect(await c.cache.enabled()).toEqual([]);
    // The writers never got their own notices back.
    expect(b.refreshed).toEqual([{ kind: 'channels', ids: [written._id] }]);
  });

  it('announces writes to clients, users, mediators and contact groups, each as its own kind, and none of the others', async () => {
    const schema = newSchemaName();
    const a = await instance(schema, 'a');
    const b = await instance(schema, 'b');
    const now = new Date();
    const client = await a.store.clients.insert({ clientID: 'lab', name: 'Lab', roles: ['lab'], createdAt: now, updatedAt: now });
    const group = await a.store.contactGroups.insert({ group: 'on call', users: [] });
    await a.store.clients.removeMany({ clientID: 'nobody' });
    await a.store.users.updateMany({}, { set: { firstname: 'x' } });
    await a.store.mediators.removeById('no-such-mediator');
    const user = await a.store.users.insert({ email: 'nurse@clinic.example', firstname: 'N', surname: 'S', groups: ['admin'] } as never);
    await a.store.users.updateMany({}, { set: { firstname: 'x' } });
    const mediator = await a.store.mediators.insert({ urn: 'urn:mediator:lab', name: 'lab', version: '1.0.0' } as never);
    // Not announced: nothing any instance holds in memory.
    await a.store.sessions.insert({ tokenHash: 'h', userId: 'u', expiresAt: now, createdAt: now } as never);
    await a.store.contactGroups.removeById(group._id);
    await until('b to see both contact group writes', () => (b.refreshed.filter((r) => r.kind === 'contactGroups').length === 2 ? true : undefined));
    // Notices arrive in the order the writes were made; writes that changed nothing are not announced.
    expect(b.refreshed).toEqual([
      { kind: 'clients', ids: [client._id] },
      { kind: 'contactGroups', ids: [group._id] },
      { kind: 'users', ids: [user._id] },
      // Which documents a filter reached is not known: any user may have changed.
      { kind: 'users', ids: null },
      { kind: 'mediators', ids: [mediator._id] },
      { kind: 'contactGroups', ids: [group._id] },
    ]);
  });

  it('reconnects a dropped listening connection and then refreshes everything, since notices may have been missed', async () => {
    const schema = newSchemaName();
    const a = await instance(schema, 'a');
    const b = await instance(schema, 'b');
    const { rows } = await runSql(db.url, `SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT pg_backend_pid()%' AND datname = current_database() AND pid <> pg_backend_pid()`);
    expect(rows.length).toBeGreaterThan(0);
    // The listening connections are those whose last query asked for their pid.
    const pids = rows.map((r: { pid: number }) => r.pid);
    // Every listening connection of this database is ended, a's and b's alike, as a failover would.
    await runSql(db.url, 'SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) AS pid', [pids]);
    // A write made while b may be away: heard or not, the resync after the reconnect covers it.
    const written = await a.store.channels.insert(channel('missed'));
    await until('b to resync after the reconnect', () => (b.refreshed.some((r) => r.kind === 'keystore') ? true : undefined));
    const kinds = b.refreshed.filter((r) => r.ids === null).map((r) => r.kind).sort();
    expect(kinds).toEqual(['channels', 'clients', 'contactGroups', 'keystore', 'mediators', 'users']);
    expect((await b.cache.enabled()).map((ch) => ch.name)).toEqual(['missed']);
    // And it hears the next write as before.
    b.refreshed.length = 0;
    await a.store.channels.updateById(written._id, { set: { name: 'heard' } });
    await until('b to hear the write after the reconnect', () => b.refreshed.find((r) => r.ids !== null));
    expect(b.refreshed).toEqual([{ kind: 'channels', ids: [written._id] }]);
  });

  it('does not bounce a keystore change between instances: a reload caused by another instance is not announced back', async () => {
    const schema = newSchemaName();
    let bReloads = 0;
    let aReloads = 0;
    // As app.ts would wire it: the keystore announces every change it applies, including reloads.
    const b: Instance = await instance(schema, 'b', {
      keystore: () => {
        bReloads++;
        b.cluster.keystoreChanged();
        return Promise.resolve();
      },
    });
    const a: Instance = await instance(schema, 'a', {
      keystore: () => {
        aReloads++;
        a.cluster.keystoreChanged();
        return Promise.resolve();
      },
    });
    a.cluster.keystoreChanged();
    await until('b to reload its keystore', () => (bReloads === 1 ? true : undefined));
    await b.cluster.settled();
    // A marker write after b's (possible) echo: once a hears it, it would have heard the echo first.
    const marker = await b.store.clients.insert({ clientID: 'marker', name: 'm', roles: [], createdAt: new Date(), updatedAt: new Date() });
    await until('a to hear the marker', () => (a.refreshed.some((r) => r.ids?.includes(marker._id) === true) ? true : undefined));
    expect(aReloads).toBe(0);
    expect(bReloads).toBe(1);
  });

  it('shows every instance\'s transactions on every other instance\'s live events, once, and counts them only where they ran', async () => {
    const schema = newSchemaName();
    const [a, b, c] = [await instance(schema, 'a'), await instance(schema, 'b'), await instance(schema, 'c')];
    const seen = new Map<string, { type: string; event: TransactionEvent; detail?: CompletionDetail }[]>();
    for (const i of [a, b, c]) {
      const list: { type: string; event: TransactionEvent; detail?: CompletionDetail }[] = [];
      seen.set(i.name, list);
      i.events.on('transaction.started', (event) => list.push({ type: 'started', event }));
      i.events.on('transaction.completed', (event, detail) => list.push({ type: 'completed', event, detail }));
    }
    const prometheusB = new PrometheusMetrics();
    prometheusB.attach(b.events);
    const started: TransactionEvent = { transactionId: 't1', channelID: 'ch1', status: 'Processing', method: 'POST', path: '/fhir/Patient' };
    a.events.emit('transaction.started', started);
    const done: TransactionEvent = { ...started, status: 'Successful', responseStatus: 201 };
    a.events.completed(done, { channelName: 'FHIR', clientName: 'emr', responseTimeMs: 12 });
    c.events.emit('transaction.started', { transactionId: 't2', channelID: 'ch2', status: 'Processing', method: 'GET', path: '/x' });
    for (const name of ['b', 'c']) await until(`${name} to see a's completion`, () => (seen.get(name)!.some((s) => s.type === 'completed') ? true : undefined));
    await until('a and b to see c\'s start', () => (seen.get('a')!.length === 3 && seen.get('b')!.length === 3 ? true : undefined));
    await Promise.all([a, b, c].map((i) => i.cluster.settled()));
    // One more round trip for any echo to arrive: a marker sent after everything else.
    c.events.emit('transaction.started', { transactionId: 'marker', channelID: 'm', status: 'Processing', method: 'GET', path: '/' });
    await until('a and b to see the marker', () => (seen.get('a')!.length === 4 && seen.get('b')!.length === 4 ? true : undefined));
    // Each instance's events keep their order; events of different instances may interleave either way.
    const ofTx = (name: string, id: string) => seen.get(name)!.filter((s) => s.event.transactionId === id).map((s) => [s.type, s.event]);
    expect(ofTx('b', 't1')).toEqual([['started', started], ['completed', done]]);
    expect(ofTx('b', 't2')).toEqual([['started', { transactionId: 't2', channelID: 'ch2', status: 'Processing', method: 'GET', path: '/x' }]]);
    expect(seen.get('b')!.find((s) => s.type === 'completed')!.detail).toEqual({ channelName: 'FHIR', relayedFrom: 'a' });
    // Each saw every event exactly once: a its own two (no echo) and c's two, c likewise.
    const ids = (name: string) => seen.get(name)!.map((s) => s.event.transactionId).sort();
    for (const name of ['a', 'b', 'c']) expect(ids(name)).toEqual(['marker', 't1', 't1', 't2']);
    expect(ofTx('a', 't1')).toEqual([['started', started], ['completed', done]]);
    // b's Prometheus counters count b's own completions only.
    b.events.completed({ transactionId: 'b1', channelID: 'chb', status: 'Successful', method: 'GET', path: '/', responseStatus: 200 }, { channelName: 'B own' });
    const exposition = await prometheusB.exposition();
    expect(exposition).toMatch(/openhim_transactions_total\{[^}]*channel="B own"[^}]*\} 1/);
    expect(exposition).not.toMatch(/channel="FHIR"/);
  });

  it('relays a burst bigger than one notification, in order and complete', async () => {
    const schema = newSchemaName();
    const a = await instance(schema, 'a');
    const b = await instance(schema, 'b');
    const got: string[] = [];
    b.events.on('transaction.started', (event) => got.push(event.transactionId));
    const ids = Array.from({ length: 500 }, (_, n) => `tx-${n}`);
    for (const id of ids) a.events.emit('transaction.started', { transactionId: id, channelID: 'c', status: 'Processing', method: 'POST', path: `/${'p'.repeat(2_000)}` });
    await until('b to see the whole burst', () => (got.length === ids.length ? true : undefined));
    expect(got).toEqual(ids);
  });

  it('shows the engine and the live instances for GET /about, from any instance', async () => {
    const schema = newSchemaName();
    const [a, b, c] = [await instance(schema, 'a'), await instance(schema, 'b'), await instance(schema, 'c')];
    await a.cluster.register('https://a.example:8080');
    await b.cluster.register('https://b.example:8080');
    const about = await c.cluster.about();
    expect(about.engine).toBe('postgres');
    expect(about.instanceId).toBe('c');
    expect(about.instances.map((i) => [i.id, i.name, i.apiUrl, i.version])).toEqual([['a', 'a', 'https://a.example:8080', '1.0.0'], ['b', 'b', 'https://b.example:8080', '1.0.0']]);
    await a.cluster.stop();
    expect((await c.cluster.about()).instances.map((i) => i.id)).toEqual(['b']);
  });

  it('keeps a change notice under NOTIFY\'s limit by dropping ids that would not fit', () => {
    const few = encodeChange({ kind: 'clients', ids: ['a', 'b'], origin: 'i' });
    expect(decodeChange(few)).toEqual({ kind: 'clients', ids: ['a', 'b'], origin: 'i' });
    const many = encodeChange({ kind: 'clients', ids: Array.from({ length: 1_000 }, (_, n) => `${n}`.padStart(24, '0')), origin: 'i' });
    expect(Buffer.byteLength(many)).toBeLessThan(8_000);
    expect(decodeChange(many)).toEqual({ kind: 'clients', ids: null, origin: 'i' });
    expect(decodeChange('{"o":"i","k":"secrets","i":null}')).toBeNull();
    expect(decodeChange('not json')).toBeNull();
  });
});
