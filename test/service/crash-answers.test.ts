/**
 * Issue 12 item 3: what a client was told is what the log says. A real service process under a load of 160
 * concurrent clients is killed (SIGKILL) at random moments, several rounds on one data folder. Every answer each
 * client got is recorded; after the last restart, every transaction whose client got a whole answer must be stored
 * with the status that answer implies: a 2xx never Failed, Junction's own 5xx or an upstream's 5xx Failed.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent, request } from 'undici';
import { basic, ROOT_EMAIL, tempDir } from '../helpers/junction.js';
import { httpUpstream, readBody } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { loopbackServiceEnv, runService } from '../helpers/process.js';
import type { ServiceProcess } from '../helpers/process.js';
import { createSqliteTransactionLog } from '../../service/storage/sqlite/transaction-log.js';

/** Clients sending at once: more than the 150 in flight the issue asks for. */
const CLIENTS = 160;
const ROUNDS = 4;

/** a: primary only (200); b: a primary (200) and a slower secondary; c: an unreachable primary (Junction's 500); d: an upstream 503. */
type Kind = 'a' | 'b' | 'c' | 'd';
const KINDS: Kind[] = ['a', 'a', 'a', 'a', 'a', 'a', 'b', 'b', 'c', 'd'];

/** One answer a client got whole. */
interface Answer {
  kind: Kind;
  path: string;
  status: number;
  id: string;
  body: string;
}

describe('answers and the log across SIGKILLs under load', () => {
  const cleanups: (() => Promise<void>)[] = [];
  let service: ServiceProcess | undefined;
  afterEach(async () => {
    if (service?.child.exitCode === null && service.child.signalCode === null) {
      service.child.kill('SIGKILL');
      await service.exited;
    }
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('stores every answered transaction with the status its answer implies, after each kill', async () => {
    const upstream: Upstream = await httpUpstream((req, res) => {
      void readBody(req).then(() => {
        const url = req.url ?? '';
        if (url.startsWith('/slow')) {
          // The secondary route answers later than the primary, so kills catch some still running.
          setTimeout(() => res.end('later'), 30);
          return;
        }
        res.writeHead(url.startsWith('/d/') ? 503 : 200, { 'content-type': 'text/plain' });
        res.end(`answer for ${url}`);
      });
    });
    cleanups.push(() => upstream.close());
    const dataDir = await tempDir();
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const env = await loopbackServiceEnv(dataDir, 'crash-answers-password-1');
    const api = `http://127.0.0.1:${env.JUNCTION_API_PORT}`;
    const proxy = `http://127.0.0.1:${env.JUNCTION_ROUTER_HTTP_PORT}`;
    const dispatcher = new Agent({ connections: CLIENTS + 40, pipelining: 1 });
    cleanups.push(() => dispatcher.close());

    const answers: Answer[] = [];
    let sent = 0;

    /** One client: sends until told to stop, recording each answer it got whole; never rejects. */
    async function client(round: number, index: number, running: () => boolean, onAnswer: () => void): Promise<void> {
      const kind = KINDS[index % KINDS.length] ?? 'a';
      for (let seq = 0; running(); seq++) {
        const path = `/${kind}/${round}-${index}-${seq}`;
        sent++;
        try {
          const res = await request(`${proxy}${path}`, { dispatcher, method: 'POST', body: `{"round":${round},"client":${index},"seq":${seq}}`, headers: { 'content-type': 'application/json' } });
          const body = await res.body.text();
          answers.push({ kind, path, status: res.statusCode, id: String(res.headers['x-openhim-transactionid'] ?? ''), body });
          onAnswer();
        } catch {
          // The service was killed before this answer was whole: the client was not answered.
          return;
        }
      }
    }

    for (let round = 0; round < ROUNDS; round++) {
      service = runService([], env);
      await service.ready;
      if (round === 0) {
        const headers = { authorization: basic(ROOT_EMAIL, env.JUNCTION_ADMIN_PASSWORD), 'content-type': 'application/json' };
        const route = (name: string, port: number, extra: Record<string, unknown> = {}) => ({ name, host: '127.0.0.1', port, primary: true, ...extra });
        const channels = [
          { name: 'a', urlPattern: '^/a/.*$', authType: 'public', routes: [route('up', upstream.port)] },
          { name: 'b', urlPattern: '^/b/.*$', authType: 'public', routes: [route('up', upstream.port), route('slow', upstream.port, { primary: false, path: '/slow' })] },
          { name: 'c', urlPattern: '^/c/.*$', authType: 'public', routes: [route('nowhere', 1)] },
          { name: 'd', urlPattern: '^/d/.*$', authType: 'public', routes: [route('up', upstream.port)] },
        ];
        for (const channel of channels) {
          const res = await request(`${api}/channels`, { method: 'POST', headers, body: JSON.stringify(channel) });
          expect(res.statusCode).toBe(201);
          await res.body.dump();
        }
      }
      // Killed at a random moment, after a random number of answers in this round.
      const target = 150 + Math.floor(Math.random() * 450);
      let got = 0;
      let running = true;
      let reached: () => void = () => undefined;
      const enough = new Promise<void>((resolve) => (reached = resolve));
      const clients = Array.from({ length: CLIENTS }, (_, i) =>
        client(round, i, () => running, () => {
          if (++got === target) reached();
        }),
      );
      await enough;
      running = false;
      service.child.kill('SIGKILL');
      await service.exited;
      await Promise.all(clients);
    }

    // The last start recovers what the last kill left; then a clean stop.
    service = runService([], env);
    await service.ready;
    service.child.kill('SIGTERM');
    expect((await service.exited).code).toBe(0);

    const log = createSqliteTransactionLog({ file: join(dataDir, 'transactions.sqlite'), logger: pino({ level: 'silent' }) });
    await log.open();
    cleanups.push(() => log.close());
    const wrong: string[] = [];
    for (const answer of answers) {
      const tx = await log.get(answer.id);
      const expected: string[] =
        answer.kind === 'a' ? ['Successful'] : answer.kind === 'b' ? ['Successful', 'Completed with error(s)'] : ['Failed'];
      const told = answer.kind === 'c' ? answer.status === 500 && answer.body.includes('ROUTE_FAILED') : answer.status === (answer.kind === 'd' ? 503 : 200);
      if (!told) wrong.push(`${answer.path}: the client was told ${answer.status} ${answer.body.slice(0, 80)}`);
      else if (tx === null || !expected.includes(tx.status)) wrong.push(`${answer.path} (${answer.id}): told ${answer.status}, stored ${tx?.status ?? 'nothing'} ${tx?.error?.message ?? ''}`);
      else if (tx.status === 'Completed with error(s)' && !/^Interrupted/.test(tx.routes[0]?.error?.message ?? '')) wrong.push(`${answer.path}: Completed with error(s) without an interrupted route`);
    }
    expect(await log.count({ status: ['Processing'] })).toBe(0);
    expect(answers.length).toBeGreaterThanOrEqual(ROUNDS * 150);
    expect(sent).toBeGreaterThan(answers.length);
    const byKind = (kind: Kind) => wrong.filter((w) => w.startsWith(`/${kind}/`)).length;
    expect(wrong, `${wrong.length} of ${answers.length} answers disagree with the log (a ${byKind('a')}, b ${byKind('b')}, c ${byKind('c')}, d ${byKind('d')})`).toEqual([]);
  }, 120_000);
});
