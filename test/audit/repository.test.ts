/**
 * The audit repository end to end: messages sent over real sockets (util-linux `logger` and raw frames) to a whole
 * Junction are parsed, stored and answered by the audits API; a malformed one and an XML bomb are stored raw, and the
 * listener keeps serving.
 */
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { afterEach, describe, expect, it } from 'vitest';
import type { Audit, AuditFilterOptions } from '../../service/contracts/audits.js';
import { frameOctetCounted } from '../../service/domain/codecs/syslog-framing.js';
import { startJunction, unlockRoot } from '../helpers/junction.js';
import type { TestJunction } from '../helpers/junction.js';
import { freePorts } from '../helpers/process.js';
import { until } from '../helpers/wait.js';
import { closedOf, tcpPeer } from './listener-helpers.js';
import { rfc5424, sample } from './samples.js';

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited with ${String(code)}: ${stderr}`))));
  });
}

const BOMB = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><AuditMessage>&lol3;</AuditMessage>`;

describe('the audit repository', () => {
  let t: TestJunction | undefined;
  afterEach(async () => {
    await t?.destroy();
    t = undefined;
  });

  it('stores what logger and a raw TCP sender send, answers it through /audits, and keeps malformed messages raw', async () => {
    const [udp, tcp] = (await freePorts(2)) as [number, number];
    t = await startJunction({ auditing: { host: '127.0.0.1', servers: { udp: { enabled: true, port: udp }, tcp: { enabled: true, port: tcp } } } });
    const admin = { authorization: await unlockRoot(t) };

    // One line each: logger sends every input line as a message, cut at --size bytes (1 KiB by default).
    const patientRead = sample('dicom-patient-read').replace(/\n\s*/g, '');
    await run('logger', ['--tcp', '--octet-count', '--rfc5424', '--size', '65536', '-n', '127.0.0.1', '-P', String(tcp), '-t', 'ehr', patientRead]);
    await run('logger', ['--udp', '--rfc3164', '--size', '65536', '-n', '127.0.0.1', '-P', String(udp), '-t', 'ehr', sample('rfc3881-login').replace(/\n\s*/g, '')]);
    // Ten messages in one write, then a malformed one and an XML bomb on the same connection.
    const socket = await tcpPeer(tcp);
    const frames = Array.from({ length: 10 }, () => frameOctetCounted(rfc5424(sample('dicom-pix-query'))));
    socket.write(Buffer.concat(frames));
    socket.write(Buffer.concat([frameOctetCounted(rfc5424('this is not XML')), frameOctetCounted(rfc5424(BOMB))]));
    socket.end();
    await closedOf(socket);

    const junction = t.junction;
    await until('every message stored', () => (junction.auditIntakeStats()?.stored === 14 ? true : undefined));
    expect(junction.auditIntakeStats()).toMatchObject({ received: 14, stored: 14, malformed: 2, failed: 0 });

    const all = await t.inject('/audits?filterRepresentation=full', { headers: admin });
    expect(all.status).toBe(200);
    const audits = all.body as Audit[];
    const ofEvent = (code: string) => audits.filter((a) => a.eventIdentification.eventID?.code === code && a.rawMessage !== undefined);
    expect(ofEvent('110110')).toHaveLength(1);
    expect(ofEvent('110110')[0]?.syslog).toMatchObject({ type: 'RFC5424', appName: 'ehr' });
    expect(ofEvent('110112')).toHaveLength(10);
    expect(audits.filter((a) => a.syslog?.type === 'RFC3164' && a.eventIdentification.eventID?.code === '110114')).toHaveLength(1);
    const raw = audits.filter((a) => a.eventIdentification.eventID === undefined && a.rawMessage !== undefined);
    expect(raw.map((a) => a.rawMessage ?? '').sort()).toEqual([expect.stringContaining('<!DOCTYPE lolz'), expect.stringContaining('this is not XML')].sort());
    // The bomb was never expanded.
    expect(JSON.stringify(raw)).not.toContain('lollollol');

    // The patient filter the console sends finds the record access.
    const filters = JSON.stringify({ 'participantObjectIdentification.participantObjectID': JSON.stringify('PT-004512\\^\\^\\^.*') });
    const found = await t.inject(`/audits?filterRepresentation=full&filters=${encodeURIComponent(filters)}`, { headers: admin });
    const ofPatient = found.body as Audit[];
    expect(ofPatient.map((a) => a.eventIdentification.eventID?.code).sort()).toEqual(['110110', ...Array<string>(10).fill('110112')]);
    for (const audit of ofPatient) expect(audit.participantObjectIdentification.some((o) => o.participantObjectID?.startsWith('PT-004512^^^'))).toBe(true);

    const options = await t.inject('/audits-filter-options', { headers: admin });
    expect((options.body as AuditFilterOptions).eventID.map((c) => c.code)).toEqual(expect.arrayContaining(['110110', '110112', '110114']));

    // Still listening after the junk.
    const udpSocket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => udpSocket.send(rfc5424(sample('rfc3881-login')), udp, '127.0.0.1', (err) => (err ? reject(err) : resolve())));
    udpSocket.close();
    await until('the datagram stored', () => (junction.auditIntakeStats()?.stored === 15 ? true : undefined));
  });
});
