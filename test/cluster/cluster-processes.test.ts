/**
 * Issue 20, "Done when": three real Junction service processes on one PostgreSQL database, each with its own data
 * folder and ports and the same keystore secret file. Traffic goes to all three; a channel changed through one
 * instance's API routes differently on the others within a second; a polling channel ticks every 2 s. Then the
 * instance holding the polling channel's lease is SIGKILLed mid-load, and: every transaction whose client got a whole
 * answer is stored with the status that answer implies, nothing stays Processing once a survivor has finished the dead
 * instance, and the polling ticks go on from a survivor with no scheduled slot polled twice. The cluster's timing is
 * shortened through its settings (storage.postgres.cluster.*) so the dead instance is found in seconds.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresTransactionLog, PostgresDatabase } from '../../service/storage/postgres/index.js';
import { basic, ROOT_EMAIL, tempDir } from '../helpers/junction.js';
import { createTestDatabase, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';
import { loopbackServiceEnv, runService } from '../helpers/process.js';
import type { ServiceProcess } from '../helpers/process.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { until } from '../helpers/wait.js';

const PASSWORD = 'cluster-processes-password-1';
const CLIENTS_PER_INSTANCE = 16;
/** The polling channel's cron: every even second, so every instance's timer fires for the same slot at once. */
const POLL_EVERY_MS = 2_000;
const POLL_CRON = '*/2 * * * * *';
/** Beats every 250 ms, dead after 1.5 s; a job lease of 3 s outlives the 2 s between polls, so its holder keeps it. */
const TIMING = { JUNCTION_STORAGE_POSTGRES_CLUSTER_HEARTBEAT_MS: '250', JUNCTION_STORAGE_POSTGRES_CLUSTER_DEAD_AFTER_MS: '1500', JUNCTION_STORAGE_POSTGRES_CLUSTER_LEASE_MS: '3000' };

/** a: the upstream answers 200 (Successful); d: it answers 503 (Failed). */
type Kind = 'a' | 'd';

/** One answer a client got whole, from the instance it sent to. */
interface Answer {
  instance: number;
  kind: Kind;
  path: string;
  status: number;
  id: string;
}

interface Member {
  service: ServiceProcess;
  api: string;
  proxy: string;
  /** The cluster's id of this process (GET /about, the entry marked self). */
  id: string;
}

describe('three Junction processes on one PostgreSQL database', () => {
  const cleanups: (() => Promise<void>)[] = [];
  const members: Member[] = [];
  let db: TestDatabase | undefined;

  afterAll(async () => {
    for (const m of members) {
      if (m.service.child.exitCode === null && m.service.child.signalCode === null) {
        m.service.child.kill('SIGKILL');
        await m.service.exited;
      }
    }
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await db?.drop();
  });

  it('share channel changes within a second, lose no answered transaction to a SIGKILL, and poll each slot once', async () => {
    db = await createTestDatabase();
    const shared = await tempDir('junction-cluster-processes-');
    cleanups.push(() => rm(shared, { recursive: true, force: true }));
    const upstream: Upstream = await httpUpstream((req, res) => {
      void readBody(req).then(() => {
        const url = req.url ?? '';
        res.writeHead(url.startsWith('/d/') ? 503 : 200, { 'content-type': 'text/plain' });
        res.end(`answer for ${url}`);
      });
    });
    cleanups.push(() => upstream.close());
    // The polling target notes when each tick reached it.
    const polls: number[] = [];
    const pollTarget: Upstream = await httpUpstream((req, res) => {
      polls.push(Date.now());
      void readBody(req).then(() => res.end('polled'));
    });
    cleanups.push(() => pollTarget.close());
    const dispatcher = new Agent({ connections: 3 * CLIENTS_PER_INSTANCE + 20, pipelining: 1 });
    cleanups.push(() => dispatcher.close());
    const admin = { authorization: basic(ROOT_EMAIL, PASSWORD), 'content-type': 'application/json' };

    const launch = async (index: number): Promise<Member> => {
      const dataDir = join(shared, `instance-${index}`);
      const env = {
        ...(await loopbackServiceEnv(dataDir, PASSWORD)),
        JUNCTION_STORAGE_ENGINE: 'postgres',
        JUNCTION_STORAGE_POSTGRES_URL: db!.url,
        JUNCTION_STORAGE_POSTGRES_POOL_SIZE: '6',
        JUNCTION_KEYSTORE_SECRET_FILE: join(shared, 'keystore.secret'),
        ...TIMING,
      };
      const service = runService([], env);
      const api = `http://127.0.0.1:${env.JUNCTION_API_PORT}`;
      const member: Member = { service, api, proxy: `http://127.0.0.1:${env.JUNCTION_ROUTER_HTTP_PORT}`, id: '' };
      members[index] = member;
      await service.ready;
      const about = await json<{ storage: { instances: { id: string; self: boolean }[] } }>(`${api}/about`, 'GET', undefined, admin);
      member.id = about.storage.instances.find((i) => i.self)?.id ?? '';
      expect(member.id).not.toBe('');
      return member;
    };
    // The first seeds the first-run account and the keystore secret alone; then the other two.
    await launch(0);
    await Promise.all([launch(1), launch(2)]);
    const [a, b, c] = members as [Member, Member, Member];
    const about = await json<{ storage: { engine: string; instances: { id: string }[] } }>(`${c.api}/about`, 'GET', undefined, admin);
    expect(about.storage.engine).toBe('postgres');
    expect(about.storage.instances.map((i) => i.id).sort()).toEqual(members.map((m) => m.id).sort());

    // A channel created through the first routes on all three.
    const route = (extra: Record<string, unknown> = {}) => ({ name: 'up', host: '127.0.0.1', port: upstream.port, primary: true, ...extra });
    for (const kind of ['a', 'd', 'switch']) {
      await json(`${a.api}/channels`, 'POST', { name: kind, urlPattern: `^/${kind}/.*$`, authType: 'public', routes: [route()] }, admin, 201);
    }
    const answerOn = async (m: Member, path: string): Promise<{ status: number; body: string }> => {
      const res = await request(`${m.proxy}${path}`, { dispatcher, method: 'POST', body: 'x' });
      return { status: res.statusCode, body: await res.body.text() };
    };
    for (const m of members) await until('the new channels on every instance', async () => ((await answerOn(m, '/switch/one')).status === 200 ? true : undefined));

    // Changed through the second instance: the first and third route by the new version within a second.
    const channels = await json<{ _id: string; name: string }[]>(`${b.api}/channels`, 'GET', undefined, admin);
    const switchId = channels.find((ch) => ch.name === 'switch')!._id;
    await json(`${b.api}/channels/${switchId}`, 'PUT', { routes: [route({ path: '/changed' })] }, admin, 200);
    const changedAt = Date.now();
    const tookEffect = await Promise.all(
      [a, c].map((m) => until('the changed channel on another instance', async () => ((await answerOn(m, '/switch/two')).body === 'answer for /changed' ? Date.now() - changedAt : undefined), 5_000)),
    );
    expect(Math.max(...tookEffect)).toBeLessThan(1_000);

    // A polling channel: every instance schedules it, the lease holder polls.
    await json(`${c.api}/channels`, 'POST', { name: 'poll', type: 'polling', urlPattern: '^/poll$', pollingSchedule: POLL_CRON, routes: [{ name: 'target', host: '127.0.0.1', port: pollTarget.port, primary: true }] }, admin, 201);
    const pollId = (await json<{ _id: string; name: string }[]>(`${a.api}/channels`, 'GET', undefined, admin)).find((ch) => ch.name === 'poll')!._id;

    // Load on all three instances until the kill.
    const answers: Answer[] = [];
    let running = true;
    let sent = 0;
    const client = async (instance: number, index: number): Promise<void> => {
      const kind: Kind = index % 4 === 3 ? 'd' : 'a';
      for (let seq = 0; running; seq++) {
        const path = `/${kind}/${instance}-${index}-${seq}`;
        sent++;
        try {
          const res = await request(`${members[instance]!.proxy}${path}`, { dispatcher, method: 'POST', body: `{"instance":${instance},"seq":${seq}}`, headers: { 'content-type': 'application/json' } });
          await res.body.text();
          answers.push({ instance, kind, path, status: res.statusCode, id: String(res.headers['x-openhim-transactionid'] ?? '') });
        } catch {
          // Killed before this answer was whole: the client was not answered, and its instance is gone.
          return;
        }
      }
    };
    const clients = members.flatMap((_, instance) => Array.from({ length: CLIENTS_PER_INSTANCE }, (__, index) => client(instance, index)));

    // Killed once two polls have been made and a few hundred answers given: the instance holding the polling lease.
    const holderId = await until('the polling lease held and two polls made', async () => {
      if (polls.length < 2 || answers.length < 300) return undefined;
      const { rows } = await runSql(db!.url, 'SELECT holder FROM cluster_leases WHERE job = $1', [`polling:${pollId}`]);
      return (rows[0] as { holder: string } | undefined)?.holder;
    }, 30_000);
    const victim = members.find((m) => m.id === holderId)!;
    expect(victim).toBeDefined();
    const survivors = members.filter((m) => m !== victim);
    const killedAt = Date.now();
    const pollsBefore = polls.length;
    victim.service.child.kill('SIGKILL');
    expect((await victim.service.exited).signal).toBe('SIGKILL');
    const answeredAtKill = answers.length;

    // Survivors go on serving and polling; a survivor finishes the dead instance (its row is then gone).
    await until('three polls from a survivor and the dead instance finished', async () => {
      if (polls.filter((at) => at > killedAt).length < 3) return undefined;
      const { rows } = await runSql(db!.url, 'SELECT 1 FROM cluster_instances WHERE id = $1', [victim.id]);
      return rows.length === 0 ? true : undefined;
    }, 30_000);
    running = false;
    await Promise.all(clients);
    expect(answers.length).toBeGreaterThan(answeredAtKill);
    expect(sent).toBeGreaterThan(answers.length);

    const database = new PostgresDatabase({ settings: settingsFor(db.url), logger: pino({ level: 'silent' }) });
    const log = createPostgresTransactionLog({ database, logger: pino({ level: 'silent' }), instanceId: 'cluster-processes-test' });
    await log.open();
    cleanups.push(() => log.close());
    // The survivors' last final writes may trail their answers by a moment; the dead instance's are done already.
    await until('no transaction Processing', async () => ((await log.count({ status: ['Processing'] })) === 0 ? true : undefined), 5_000);

    const wrong: string[] = [];
    for (const answer of answers) {
      const told = answer.status === (answer.kind === 'a' ? 200 : 503);
      const tx = await log.get(answer.id);
      const expected = answer.kind === 'a' ? 'Successful' : 'Failed';
      if (!told) wrong.push(`${answer.path}: the client was told ${answer.status}`);
      else if (tx?.status !== expected) wrong.push(`${answer.path} (${answer.id}) via instance ${answer.instance}: told ${answer.status}, stored ${tx?.status ?? 'nothing'}`);
    }
    const fromVictim = answers.filter((x) => members[x.instance] === victim).length;
    expect(fromVictim).toBeGreaterThan(0);
    // The kill caught some of the victim's transactions unanswered: those are what a survivor had to finish.
    const victimStored = await runSql(db.url, 'SELECT count(*)::int AS n FROM transactions WHERE instance = $1', [victim.id]);
    expect((victimStored.rows[0] as { n: number }).n).toBeGreaterThan(fromVictim);
    expect(wrong, `${wrong.length} of ${answers.length} answers disagree with the log`).toEqual([]);

    // Polling went on from a survivor, and no 2 s slot reached the target twice (ticks of one slot fire together).
    await json(`${survivors[0]!.api}/channels/${pollId}`, 'PUT', { status: 'disabled' }, admin, 200);
    const slots = polls.map((at) => Math.floor(at / POLL_EVERY_MS));
    const doubled = slots.filter((slot, i) => slots.indexOf(slot) !== i);
    expect(doubled, `slots polled twice among ${polls.length} polls`).toEqual([]);
    expect(polls.length - pollsBefore).toBeGreaterThanOrEqual(3);
    const pollers = await runSql(db.url, `SELECT DISTINCT instance FROM transactions WHERE channel = $1 AND ts > $2`, [pollId, killedAt]);
    expect((pollers.rows as { instance: string }[]).map((r) => r.instance).every((id) => id !== victim.id && survivors.some((m) => m.id === id))).toBe(true);
    expect(pollers.rows.length).toBeGreaterThan(0);
  }, 90_000);
});

/** Sends a JSON request to the management API and returns its parsed answer, failing on any other status. */
async function json<T = unknown>(url: string, method: string, body: unknown, headers: Record<string, string>, status = 200): Promise<T> {
  const res = await request(url, { method: method as 'GET', headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.body.text();
  if (res.statusCode !== status) throw new Error(`${method} ${url}: ${res.statusCode} ${text}`);
  return (text === '' ? undefined : JSON.parse(text)) as T;
}
