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
import { startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { startPostgresServer } from '../helpers/postgres-server.js';
import type { PostgresServer } from '../helpers/postgres-server.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';
import { hl7Upstream } from '../messages/hl7-peers.js';
import { databaseAway, echoUpstream, expectNothingLost, loadedChannels, startSenders } from './outage-load.js';
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

    const load = startSenders(a, 'freeze', mllp.tcpPort, { http: 3, mllp: 1, hungMs: HUNG_MS });
    const { served, refusedAfter } = load;

    let frozenAt = 0;
    let resumedAt = 0;
    try {
      try {
        await until('traffic through both channels before the freeze', () => (served('http', 0) && served('mllp', 0) ? true : undefined));

        frozen = await serverProcesses(server.url);
        signal(frozen, 'SIGSTOP');
        frozenAt = Date.now();

        // Senders are refused while the server is frozen (without the bound none is answered until it runs again).
        await until('senders of both kinds refused while frozen', () => {
          const refused = refusedAfter(frozenAt);
          return refused.some((o) => o.kind === 'http') && refused.some((o) => o.kind === 'mllp') && refused.length >= 6 ? true : undefined;
        });
        // /health and, first, the console's needs-attention list say the database is away.
        await databaseAway(a, signedIn);
        // Once it is known away, senders are refused without waiting for the bound.
        const awayAt = Date.now();
        await until('senders refused after the database was reported away', () => (refusedAfter(awayAt).length >= 4 ? true : undefined));
        const tookMs = refusedAfter(awayAt).map((o) => o.tookMs).sort((x, y) => x - y);
        expect(tookMs[Math.floor(tookMs.length / 2)]).toBeLessThan(WRITE_TIMEOUT_MS);
      } finally {
        signal(frozen, 'SIGCONT');
        resumedAt = Date.now();
      }
      await until('HTTP and MLLP served again after the server runs', () => (served('http', resumedAt) && served('mllp', resumedAt) ? true : undefined), 15_000);
      await until('/health to report the database back', async () => ((await a.request('/health')).status === 200 ? true : undefined), 15_000);
    } finally {
      await load.stop();
    }

    if (process.env.FREEZE_DEBUG !== undefined) {
      console.log(JSON.stringify({ frozenAt, resumedAt, outcomes: load.outcomes }, null, 1));
      console.log(JSON.stringify(a.logs.filter((l) => (l.level as number) >= 40).slice(0, 40), null, 1));
    }
    // Every answer while frozen came within the bound (without it, every sender waits until the server runs again).
    expect(load.outcomes.filter((o) => o.tookMs > ANSWER_BOUND_MS)).toEqual([]);
    await expectNothingLost(a, load.outcomes, mllp._id);
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
