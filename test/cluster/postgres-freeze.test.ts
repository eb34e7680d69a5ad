/**
 * A PostgreSQL server that stops answering without closing its connections (its processes frozen with SIGSTOP, as
 * a paused virtual machine or a stalled disk would leave it) while requests flow. TCP keepalive cannot see it: the
 * kernel still acks. Every sender must get an answer within the write bound (`storage.postgres.writeTimeoutMs`),
 * /health and the needs-attention list must say the database is away, and once the server runs again traffic must
 * flow without a restart, with everything acknowledged stored. A server of this test's own: the suite's shared one is
 * never frozen. Its processes are always continued (finally, afterAll), so a failing test leaves no stopped server.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameMllp } from '../../service/domain/codecs/mllp-framing.js';
import { startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { startPostgresServer } from '../helpers/postgres-server.js';
import type { PostgresServer } from '../helpers/postgres-server.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';
import { adt, msaOf, rawPeer } from '../transports/fixtures.js';
import { bodyText, hl7Upstream } from '../messages/hl7-peers.js';
import { echoUpstream, loadedChannels } from './outage-load.js';
import type { Hl7Upstream } from '../messages/hl7-peers.js';
import { pino } from 'pino';
import { createPostgresTransactionLog, PostgresDatabase } from '../../service/storage/postgres/index.js';
import { StoreError } from '../../service/storage/store.js';
import { createTestDatabase, newSchemaName, settingsFor } from '../helpers/postgres.js';
import { tx } from '../storage/transaction-log-contract.js';

/** The write bound under test: small, so the test is quick; the default is 10 s. */
const WRITE_TIMEOUT_MS = 1000;
/**
 * The longest a sender may wait while the server is frozen: a write waits for the batch in flight, then its own
 * (twice the bound), plus room for a loaded machine. Without the bound every sender waits until the server runs again.
 */
const ANSWER_BOUND_MS = 2 * WRITE_TIMEOUT_MS + 6000;
/** A sender still waiting after this long is hung. */
const HUNG_MS = 30_000;

interface Outcome {
  kind: 'http' | 'mllp';
  sent: string;
  at: number;
  tookMs: number;
  answer?: number | string;
  transactionId?: string | null;
  errorCode?: string;
  broken?: string;
}

/** The server's processes: the postmaster (from postmaster.pid in its data folder) and its children. */
async function serverProcesses(url: string): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ setting: string }>("SELECT setting FROM pg_settings WHERE name = 'data_directory'");
    const dataDir = rows[0]?.setting ?? '';
    const postmaster = Number((await readFile(join(dataDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const children: number[] = [];
    for (const entry of await readdir('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      // Field 4 of /proc/<pid>/stat is the parent; the command name before it is in parentheses and may hold spaces.
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === postmaster) children.push(Number(entry));
    }
    return [postmaster, ...children];
  } finally {
    await client.end();
  }
}

function signal(pids: readonly number[], name: 'SIGSTOP' | 'SIGCONT'): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // A backend that ended meanwhile.
    }
  }
}

describe('a frozen PostgreSQL server under load', () => {
  let server: PostgresServer;
  let dataDir: string;
  let a: TestJunction;
  let admin: { authorization: string };
  let upstream: Upstream;
  let hl7: Hl7Upstream;
  let frozen: number[] = [];

  beforeAll(async () => {
    server = await startPostgresServer();
    dataDir = await tempDir('junction-freeze-');
    a = await startJunction(
      { storage: { engine: 'postgres', postgres: { url: server.url, poolSize: 4, writeTimeoutMs: WRITE_TIMEOUT_MS, queryTimeoutMs: 2000 } } },
      { dataDir },
    );
    admin = { authorization: await unlockRoot(a) };
    upstream = await echoUpstream();
    hl7 = await hl7Upstream();
  }, 60_000);

  afterAll(async () => {
    signal(frozen, 'SIGCONT');
    await a?.destroy();
    await upstream?.close();
    await hl7?.close();
    await server?.destroy();
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
  });

  it('answers every sender within the bound, says the database is away, and serves again when it runs', async () => {
    const { mllp, signedIn } = await loadedChannels(a, admin, 'freeze', { upstream: upstream.port, hl7: hl7.port });

    const outcomes: Outcome[] = [];
    let running = true;
    let sequence = 0;
    const httpClient = async (client: number) => {
      while (running) {
        const sent = `client ${client} request ${++sequence}`;
        const at = Date.now();
        try {
          const res = await fetch(`${a.httpUrl}/freeze/${client}`, { method: 'POST', body: sent, signal: AbortSignal.timeout(HUNG_MS) });
          const text = await res.text();
          const errorCode = res.status === 200 ? undefined : (JSON.parse(text) as { error?: { code?: string } }).error?.code;
          outcomes.push({ kind: 'http', sent, at, tookMs: Date.now() - at, answer: res.status, transactionId: res.headers.get('x-openhim-transactionid'), ...(errorCode === undefined ? {} : { errorCode }) });
        } catch (err) {
          outcomes.push({ kind: 'http', sent, at, tookMs: Date.now() - at, broken: String((err as Error).cause ?? err) });
        }
      }
    };
    const mllpClient = async () => {
      while (running) {
        const sent = `FRZ-${++sequence}`;
        const at = Date.now();
        const exchange = await rawPeer(mllp.tcpPort, (socket) => void socket.write(frameMllp(Buffer.from(adt(sent)))), 1, HUNG_MS);
        const [reply] = exchange.replies;
        if (exchange.closedBy === 'client' && reply !== undefined) outcomes.push({ kind: 'mllp', sent, at, tookMs: Date.now() - at, answer: msaOf(reply).code });
        else outcomes.push({ kind: 'mllp', sent, at, tookMs: Date.now() - at, broken: `${exchange.closedBy} ${exchange.error ?? ''}` });
      }
    };
    const clients = [httpClient(0), httpClient(1), httpClient(2), mllpClient()];
    const done = (kind: Outcome['kind'], after: number) => outcomes.some((o) => o.kind === kind && o.at >= after && (o.answer === 200 || o.answer === 'AA'));
    const refusedAfter = (after: number) => outcomes.filter((o) => o.at >= after && o.answer !== undefined && o.answer !== 200 && o.answer !== 'AA');

    let frozenAt = 0;
    let resumedAt = 0;
    try {
      await until('traffic through both channels before the freeze', () => (done('http', 0) && done('mllp', 0) ? true : undefined));

      frozen = await serverProcesses(server.url);
      signal(frozen, 'SIGSTOP');
      frozenAt = Date.now();

      // Senders are refused while the server is frozen (without the bound none is answered until it runs again).
      await until('senders of both kinds refused while frozen', () => {
        const refused = refusedAfter(frozenAt);
        return refused.some((o) => o.kind === 'http') && refused.some((o) => o.kind === 'mllp') && refused.length >= 6 ? true : undefined;
      });
      const health = await until('/health to report the database away', async () => {
        const res = await a.request('/health');
        const body = res.body as { status: string; store: { unreachable?: { since: string; error: string } } };
        return res.status === 503 && body.store.unreachable !== undefined ? body : undefined;
      });
      expect(health.status).toBe('unavailable');
      const attention = await a.request('/attention', { headers: signedIn });
      expect(attention.status, attention.text).toBe(200);
      const [first] = (attention.body as { items: { kind: string; severity: string; message: string }[] }).items;
      expect(first).toMatchObject({ kind: 'database-unreachable', severity: 'error' });
      // Once it is known away, senders are refused without waiting for the bound.
      const awayAt = Date.now();
      await until('senders refused after the database was reported away', () => (refusedAfter(awayAt).length >= 4 ? true : undefined));
      const tookMs = refusedAfter(awayAt).map((o) => o.tookMs).sort((x, y) => x - y);
      expect(tookMs[Math.floor(tookMs.length / 2)]).toBeLessThan(WRITE_TIMEOUT_MS);
    } finally {
      signal(frozen, 'SIGCONT');
      resumedAt = Date.now();
    }
    try {
      await until('HTTP and MLLP served again after the server runs', () => (done('http', resumedAt) && done('mllp', resumedAt) ? true : undefined), 15_000);
      await until('/health to report the database back', async () => ((await a.request('/health')).status === 200 ? true : undefined), 15_000);
    } finally {
      running = false;
      await Promise.all(clients);
    }

    if (process.env.FREEZE_DEBUG !== undefined) {
      console.log(JSON.stringify({ frozenAt, resumedAt, outcomes }, null, 1));
      console.log(JSON.stringify(a.logs.filter((l) => (l.level as number) >= 40).slice(0, 40), null, 1));
    }
    // Nothing hung or was reset, and every answer while frozen came within the bound.
    expect(outcomes.filter((o) => o.broken !== undefined)).toEqual([]);
    const slow = outcomes.filter((o) => o.tookMs > ANSWER_BOUND_MS);
    expect(slow).toEqual([]);
    // Every refusal is a clear one: 503 STORE_UNAVAILABLE over HTTP, an AR or CR NAK over MLLP.
    for (const o of outcomes.filter((x) => x.kind === 'http' && x.answer !== 200)) expect(o, o.sent).toMatchObject({ answer: 503, errorCode: 'STORE_UNAVAILABLE' });
    for (const o of outcomes.filter((x) => x.kind === 'mllp' && x.answer !== 'AA')) expect(['AR', 'CR'], o.sent).toContain(o.answer);

    // Nothing is left Processing once the server runs again.
    const all = await until('no transaction left Processing', async () => {
      const page = await a.junction.transactions.page({}, { limit: 10_000 });
      return page.some((tx) => tx.status === 'Processing') ? undefined : page;
    }, 15_000);
    // Every acknowledged request is stored, with its bodies.
    for (const o of outcomes.filter((x) => x.kind === 'http' && x.answer === 200)) {
      const tx = all.find((t) => t._id === o.transactionId);
      expect(tx?.status, o.sent).toBe('Successful');
      expect(await bodyText(a, tx?.request.body)).toBe(o.sent);
      expect(await bodyText(a, tx?.response?.body)).toBe(`got ${o.sent}`);
    }
    const byControlId = new Map<string, (typeof all)[number]>();
    for (const tx of all.filter((t) => t.channelID === mllp._id)) {
      const id = (await bodyText(a, tx.request.body)).split('\r')[0]?.split('|')[9];
      if (id !== undefined) byControlId.set(id, tx);
    }
    for (const o of outcomes.filter((x) => x.kind === 'mllp' && x.answer === 'AA')) {
      const tx = byControlId.get(o.sent);
      expect(tx?.status, o.sent).toBe('Successful');
      expect(msaOf(await bodyText(a, tx?.response?.body))).toEqual({ code: 'AA', controlId: o.sent });
    }
  }, 120_000);
});

/**
 * The same bound on the suite's shared server, made to stall by a lock rather than a freeze: a statement that waits
 * for another connection's transaction is a statement the server does not answer.
 */
describe('a group commit past its write bound', () => {
  it('rejects its callers, destroys its connections, settles an insert stored after all, and lets the next batch through', async () => {
    const { url, drop } = await createTestDatabase();
    const schema = newSchemaName();
    const database = new PostgresDatabase({ settings: { ...settingsFor(url), writeTimeoutMs: 300 }, logger: pino({ level: 'silent' }), schema });
    const log = createPostgresTransactionLog({ database, logger: pino({ level: 'silent' }), instanceId: 'bounded', commitWindowMs: 1 });
    const other = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
    other.on('error', () => undefined);
    try {
      await log.open();
      await other.connect();
      const otherPid = (await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
      const blocked = async () => (await other.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))', [otherPid])).rows.map((r) => r.pid);

      const first = tx('2026-05-01T10:00:00Z', { status: 'Processing' });
      await log.insert(first);
      // Its completion waits for the row another transaction holds: the batch fails by its bound, as a lost one does.
      await other.query('BEGIN');
      await other.query('SELECT 1 FROM transactions WHERE id = $1 FOR UPDATE', [first._id]);
      await expect(log.update(first._id, { set: { status: 'Successful' } })).rejects.toThrow(StoreError);

      // An insert of an id the other transaction inserted too waits for it: it fails, its statement already sent.
      const second = tx('2026-05-01T10:00:01Z', { status: 'Processing' });
      await other.query(
        `INSERT INTO transactions (id, ts, channel, client, status, code, method, path, rerun, instance, doc)
         SELECT $2, ts, channel, client, status, code, method, path, rerun, instance, doc FROM transactions WHERE id = $1`,
        [first._id, second._id],
      );
      await expect(log.insert(second)).rejects.toThrow(StoreError);
      const stalled = await blocked();
      expect(stalled).toHaveLength(2);

      // The other transaction ends: the stalled backends' connections were destroyed, so they end too (a connection
      // given back to the pool would stay), the completion is rolled back with them, and the insert commits.
      await other.query('ROLLBACK');
      await until('the timed-out connections\' backends to end', async () => {
        const { rows } = await other.query('SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1::int[])', [stalled]);
        return rows.length === 0 ? true : undefined;
      });
      // The writer goes on with the next batch, and then settles the insert its sender was refused for.
      const third = tx('2026-05-01T10:00:02Z');
      await log.insert(third);
      expect((await log.get(third._id))?.status).toBe('Successful');
      const settled = await until('the insert in doubt finished Failed', async () => {
        const record = await log.get(second._id);
        return record?.status === 'Failed' ? record : undefined;
      });
      expect(settled.error?.message).toMatch(/did not answer in time/);
      // Nothing half-written: the timed-out completion left its transaction as it was.
      expect((await log.get(first._id))?.status).toBe('Processing');
    } finally {
      await other.end().catch(() => undefined);
      await log.close();
      await drop();
    }
  }, 60_000);
});
