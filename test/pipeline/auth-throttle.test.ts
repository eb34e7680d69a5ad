/**
 * Issue 12 item 4: brute force on the transaction ports is throttled. A real Junction on 127.0.0.1; callers use other
 * loopback addresses (127.0.0.x, all routed to lo on Linux) as their local address to appear as other hosts. The
 * throttle's clock is injected, so the window passes without waiting.
 */
import { request } from 'node:http';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { basic, startJunction, tempDir, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { httpUpstream } from '../helpers/upstream.js';
import type { Upstream } from '../helpers/upstream.js';
import { createNedbStore } from '../../service/storage/nedb/index.js';
import { createSqliteAuditLog } from '../../service/storage/sqlite/audit-log.js';
import type { NewAudit } from '../../service/storage/audits.js';
import type { Collection, Store } from '../../service/storage/store.js';
import type { AuditRecord, ClientRecord } from '../../service/storage/records.js';
import { hashPassword } from '../../service/accounts/passwords.js';
import { FailureThrottle } from '../../service/accounts/login-throttle.js';
import { AuditRecorder } from '../../service/audit/recorder.js';
import { FailedLoginAudit } from '../../service/audit/failed-logins.js';
import { ClientAuthenticator } from '../../service/pipeline/authenticate.js';
import type { ClientAuthSettings } from '../../service/pipeline/authenticate.js';

interface Answer {
  status: number;
  retryAfter: string | undefined;
  body: { error?: { code: string; message: string; details: unknown } };
}

/** One request on a fresh connection from the given local address. */
function send(port: number, from: string, authorization?: string, path = '/private'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, localAddress: from, agent: false, headers: authorization === undefined ? {} : { authorization } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: Answer['body'];
        try {
          body = JSON.parse(text) as Answer['body'];
        } catch {
          body = {};
        }
        resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'], body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const detail = (audit: AuditRecord, type: string) => audit.participantObjectIdentification[0]?.participantObjectDetail?.find((d) => d.type === type)?.value;

describe('throttling failed client authentication on the HTTP transaction port', () => {
  const WINDOW_S = 300;
  let t: TestJunction;
  let upstream: Upstream;
  let now = Date.parse('2030-01-01T00:00:00Z');
  let port: number;
  const call = (from: string, authorization?: string) => send(port, from, authorization);
  const lab = (password: string) => basic('lab', password);

  /** Failed-login audits about one identity from one address, single ones and summaries apart. */
  async function auditsOf(userID: string, address: string): Promise<{ single: AuditRecord[]; summaries: AuditRecord[] }> {
    const all = await t.junction.audits.page({ codes: [{ field: 'eventID', code: '110114' }], eventOutcomeIndicator: '4' }, { skip: 0, limit: 10_000 });
    const mine = all.filter((a) => a.activeParticipant[0]?.userID === userID && a.activeParticipant[0].networkAccessPointID === address);
    return { single: mine.filter((a) => detail(a, 'attempts') === undefined), summaries: mine.filter((a) => detail(a, 'attempts') !== undefined) };
  }

  beforeAll(async () => {
    t = await startJunction(
      {
        authentication: {
          enableCustomTokenAuthentication: true,
          throttle: { maxFailuresPerClientPerAddress: 5, maxFailuresPerClient: 8, maxFailuresPerAddress: 10, windowSeconds: WINDOW_S },
        },
      },
      { clock: () => now },
    );
    port = Number(new URL(t.httpUrl).port);
    const admin = { authorization: await unlockRoot(t) };
    upstream = await httpUpstream((_req, res) => res.end('ok'));
    const channel = await t.request('/channels', {
      method: 'POST',
      headers: admin,
      json: { name: 'private', urlPattern: '^/private$', allow: ['lab', 'pharmacy'], routes: [{ name: 'p', host: '127.0.0.1', port: upstream.port, primary: true }] },
    });
    expect(channel.status).toBe(201);
    for (const [clientID, password] of [['lab', 'lab-client-pass-1'], ['pharmacy', 'pharmacy-pass-1']]) {
      const client = await t.request('/clients', { method: 'POST', headers: admin, json: { clientID, name: clientID, password, customTokenID: `${clientID}-custom-token-0123456789` } });
      expect(client.status).toBe(201);
    }
  });
  afterAll(async () => {
    await t.destroy();
    await upstream.close();
  });

  it('answers wrong passwords past the limit with 429 and Retry-After, and audits only the first', async () => {
    for (let i = 0; i < 5; i++) expect((await call('127.0.0.1', lab(`wrong-${i}`))).status).toBe(401);
    for (let i = 0; i < 20; i++) {
      const refused = await call('127.0.0.1', lab(`wrong-again-${i}`));
      expect(refused.status).toBe(429);
      expect(Number(refused.retryAfter)).toBeGreaterThan(WINDOW_S - 10);
      expect(Number(refused.retryAfter)).toBeLessThanOrEqual(WINDOW_S);
      expect(refused.body).toEqual({ error: { code: 'CLIENT_THROTTLED', message: expect.stringMatching(/try again in \d+ s/) as unknown, details: { retryAfterSeconds: Number(refused.retryAfter) } } });
    }
    // Once throttled, the address cannot try at all, or a correct guess past the limit would still get in.
    expect((await call('127.0.0.1', lab('lab-client-pass-1'))).status).toBe(429);
    const audits = await auditsOf('lab', '127.0.0.1');
    expect(audits.single).toHaveLength(1);
    expect(detail(audits.single[0] as AuditRecord, 'reason')).toBe('wrong client id or password');
    expect(audits.summaries).toHaveLength(0);
  });

  it('still admits the client with valid credentials from another address', async () => {
    expect((await call('127.0.0.2', lab('lab-client-pass-1'))).status).toBe(200);
  });

  it('holds back, past the per-client limit, only the addresses that have failed for that client', async () => {
    // 5 failures so far from 127.0.0.1; the per-client limit is 8. Fresh addresses may still try once each.
    for (const from of ['127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6']) expect((await call(from, lab('guess'))).status).toBe(401);
    expect((await call('127.0.0.3', lab('guess-2'))).status).toBe(429);
    expect((await call('127.0.0.3', lab('lab-client-pass-1'))).status).toBe(429);
    expect((await call('127.0.0.2', lab('lab-client-pass-1'))).status).toBe(200);
  });

  it('limits one address across client ids, and credentials that name no client', async () => {
    for (let i = 0; i < 8; i++) expect((await call('127.0.0.7', basic(`ghost-${i}`, 'x'))).status).toBe(401);
    for (let i = 0; i < 2; i++) expect((await call('127.0.0.7', `Custom not-a-token-${i}`)).status).toBe(401);
    expect((await call('127.0.0.7', basic('ghost-new', 'x'))).status).toBe(429);
    expect((await call('127.0.0.7', 'Custom pharmacy-custom-token-0123456789')).status).toBe(429);
    expect((await call('127.0.0.2', 'Custom pharmacy-custom-token-0123456789')).status).toBe(200);
  });

  it('checks at most the limit of a concurrent burst of guesses, and lets a burst of valid requests through', async () => {
    const guesses = await Promise.all(Array.from({ length: 30 }, (_, i) => call('127.0.0.8', basic('pharmacy', `burst-${i}`))));
    expect(guesses.filter((a) => a.status === 401)).toHaveLength(5);
    expect(guesses.filter((a) => a.status === 429)).toHaveLength(25);
    // A client's own burst (first use, nothing cached) is one attempt in flight, not thirty.
    const valid = await Promise.all(Array.from({ length: 30 }, () => call('127.0.0.9', basic('pharmacy', 'pharmacy-pass-1'))));
    expect(valid.map((a) => a.status)).toEqual(Array.from({ length: 30 }, () => 200));
  });

  it('writes one summary per identity and address when the window ends, and then lets the address try again', async () => {
    now += (WINDOW_S + 1) * 1000;
    // The next failure anywhere writes the summaries of the windows that ended.
    expect((await call('127.0.0.1', lab('wrong-after-window'))).status).toBe(401);
    const audits = await auditsOf('lab', '127.0.0.1');
    expect(audits.summaries).toHaveLength(1);
    const summary = audits.summaries[0] as AuditRecord;
    // Every attempt after the first, which was recorded by itself: 4 checked and wrong, 21 refused unchecked.
    expect(detail(summary, 'attempts')).toBe('25');
    expect(detail(summary, 'failed')).toBe('4');
    expect(detail(summary, 'refused')).toBe('21');
    expect(detail(summary, 'reason')).toMatch(/^25 failed attempts for client lab from address 127\.0\.0\.1 between 2030-01-01T00:00:\d\d\.\d{3}Z and 2030-01-01T00:00:\d\d\.\d{3}Z$/);
    // The failure after the window opened a new one, recorded by itself like the very first.
    expect(audits.single).toHaveLength(2);
    expect((await call('127.0.0.1', lab('lab-client-pass-1'))).status).toBe(200);
    expect((await call('127.0.0.3', lab('lab-client-pass-1'))).status).toBe(200);
  });

  it('writes the summaries still open when Junction stops', async () => {
    for (let i = 0; i < 3; i++) expect((await call('127.0.0.10', lab(`late-${i}`))).status).toBe(401);
    await t.stop();
    const audits = createSqliteAuditLog({ file: join(t.dataDir, 'audits.sqlite'), logger: pino({ level: 'silent' }) });
    await audits.open();
    try {
      const all = await audits.page({ codes: [{ field: 'eventID', code: '110114' }] }, { skip: 0, limit: 10_000 });
      const late = all.filter((a) => a.activeParticipant[0]?.networkAccessPointID === '127.0.0.10');
      expect(late).toHaveLength(2);
      expect(late.map((a) => detail(a, 'attempts')).filter((n) => n !== undefined)).toEqual(['2']);
    } finally {
      await audits.close();
    }
  });
});

describe('a throttled attempt costs no lookup and no password hash', () => {
  let dir: string;
  let store: Store;
  /** What the recorder under test wrote. */
  const stored: NewAudit[] = [];
  const settings: ClientAuthSettings = {
    enableMutualTLSAuthentication: true,
    enableBasicAuthentication: true,
    enableCustomTokenAuthentication: true,
    enableJWTAuthentication: false,
    jwt: { algorithms: ['HS256'], audience: [], issuer: '' },
  };

  beforeAll(async () => {
    dir = await tempDir();
    store = createNedbStore({ dataDir: dir, logger: pino({ level: 'silent' }) });
    await store.open();
    const at = new Date();
    await store.clients.insert({ clientID: 'lab', name: 'lab', roles: [], createdAt: at, updatedAt: at, passwordHash: await hashPassword('lab-password-1'), passwordAlgorithm: 'scrypt' });
  });
  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses before reading the client record, which every password check needs first', async () => {
    // The real collection, with its reads counted: a password is only ever hashed after its client is looked up.
    let lookups = 0;
    const clients = new Proxy(store.clients, {
      get(target, property, receiver) {
        if (property === 'findOne') {
          return (...args: Parameters<Collection<ClientRecord>['findOne']>) => {
            lookups += 1;
            return target.findOne(...args);
          };
        }
        return Reflect.get(target, property, receiver) as unknown;
      },
    });
    const audit = new AuditRecorder({ audits: { add: async (added) => stored.push(added) }, logger: pino({ level: 'silent' }), auditSourceID: 'test' });
    const guard = {
      throttle: new FailureThrottle({ maxFailuresPerIdentityAndAddress: 2, maxFailuresPerIdentity: 10, maxFailuresPerAddress: 10, windowSeconds: 60 }),
      failures: new FailedLoginAudit({ audit, windowSeconds: 60 }),
    };
    const auth = new ClientAuthenticator({ clients, settings, guard });
    const wrong = { authorization: basic('lab', 'nope'), address: '10.1.1.1' };
    expect(await auth.authenticate(wrong)).toMatchObject({ outcome: 'refused' });
    expect(await auth.authenticate({ ...wrong, authorization: basic('lab', 'nope-2') })).toMatchObject({ outcome: 'refused' });
    expect(lookups).toBe(2);
    const auditsBefore = stored.length;
    for (let i = 0; i < 50; i++) {
      expect(await auth.authenticate({ ...wrong, authorization: basic('lab', `nope-${i + 3}`) })).toMatchObject({ outcome: 'throttled', claimed: 'lab' });
    }
    expect(lookups).toBe(2);
    expect(stored.length).toBe(auditsBefore);
    // Another address is not held back.
    expect(await auth.authenticate({ authorization: basic('lab', 'lab-password-1'), address: '10.1.1.2' })).toMatchObject({ outcome: 'authenticated' });
  });
});
