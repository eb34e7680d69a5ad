/**
 * Node authentication events end to end, on a Junction whose clock the test moves: a sender refused on a tcp channel
 * is audited at once, the refusals that follow from its address (HTTP or socket) are counted, and one summary is
 * written when the window ends.
 */
import { fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { frameMllp } from '../../service/domain/codecs/mllp-framing.js';
import type { AuditRecord } from '../../service/storage/audits.js';
import { adt, rawPeer } from '../transports/fixtures.js';
import { listeningChannel } from '../messages/hl7-peers.js';

describe('node authentication audits', () => {
  let t: TestJunction;
  let admin: { authorization: string };
  let now = Date.now();

  const nodeAuth = (): Promise<AuditRecord[]> => t.junction.audits.page({ codes: [{ field: 'eventTypeCode', code: '110126' }] }, { skip: 0, limit: 100 });
  const detail = (audit: AuditRecord | undefined, type: string) => audit?.participantObjectIdentification[0]?.participantObjectDetail?.find((d) => d.type === type)?.value;

  beforeAll(async () => {
    t = await startJunction({}, { clock: () => now });
    admin = { authorization: await unlockRoot(t) };
  });

  afterAll(async () => {
    await t.destroy();
  });

  it('audits the first refusal from an address at once and the rest in one summary per window', async () => {
    const channel = await listeningChannel(t, admin, 9, 'tcp locked', { authType: 'private', allow: ['lab'] });
    const refused = await rawPeer(channel.tcpPort, (socket) => void socket.write(frameMllp(Buffer.from(adt('LOCKED-1')))), 1);
    expect(refused.replies[0]?.toString()).toContain('may not use channel tcp locked');
    const first = await nodeAuth();
    expect(first).toHaveLength(1);
    expect(first[0]?.participantObjectIdentification[0]?.participantObjectID).toBe('127.0.0.1');
    expect(detail(first[0], 'channel')).toBe('tcp locked');
    expect(detail(first[0], 'attempts')).toBe('1');

    const http = await t.inject('/channels', { method: 'POST', headers: admin, json: { name: 'http locked', urlPattern: '^/locked$', authType: 'private', allow: ['lab'], routes: [{ name: 'r', host: '127.0.0.1', port: 9, primary: true }] } });
    expect(http.status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await fetch(`${t.httpUrl}/locked`)).status).toBe(401);
    expect(await nodeAuth()).toHaveLength(1);

    now += (t.config.authentication.throttle.windowSeconds + 1) * 1000;
    expect((await fetch(`${t.httpUrl}/locked`)).status).toBe(401);
    // The test's clock stood still through the first window, so the first refusal and the summary share a time and
    // the page's time order doesn't separate them: the summary is the one that carries the window's bounds.
    const all = await nodeAuth();
    const fresh = all[0];
    const summary = all.find((a) => detail(a, 'from') !== undefined);
    expect(detail(summary, 'attempts')).toBe('3');
    expect(detail(summary, 'channel')).toBe('http locked');
    expect(detail(summary, 'from')).toMatch(/^\d{4}-/);
    expect(detail(fresh, 'attempts')).toBe('1');
    expect(await nodeAuth()).toHaveLength(3);
  });
});
