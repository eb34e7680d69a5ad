import { describe, expect, it } from 'vitest';
import { AuditIntake } from '../../service/audit/intake.js';
import { inlineAuditParser } from '../../service/audit/parsers.js';
import type { AuditParser } from '../../service/audit/parsers.js';
import type { AuditPeer } from '../../service/audit/peer.js';
import type { AuditSink, NewAudit } from '../../service/storage/audits.js';
import { memoryLogger } from '../helpers/logger.js';
import { rfc3164, rfc5424, sample } from './samples.js';

const tcpPeer: AuditPeer = { transport: 'tcp', address: '10.20.0.12', port: 40001 };
const udpPeer: AuditPeer = { transport: 'udp', address: '10.20.0.13', port: 40002 };

/** A sink that keeps what it is given, and can hold writes open or fail them. */
class FakeSink implements AuditSink {
  added: NewAudit[] = [];
  held: { resolve: () => void; reject: (err: Error) => void }[] = [];
  mode: 'store' | 'hold' | 'fail' | 'throw' = 'store';

  add(audit: NewAudit): Promise<unknown> {
    if (this.mode === 'throw') throw new Error('disk gone');
    if (this.mode === 'fail') return Promise.reject(new Error('disk full'));
    if (this.mode === 'store') {
      this.added.push(audit);
      return Promise.resolve(audit);
    }
    return new Promise<void>((resolve, reject) => {
      this.held.push({
        resolve: () => {
          this.added.push(audit);
          resolve();
        },
        reject,
      });
    });
  }
}

function setup(options: { highWater?: number; parser?: AuditParser } = {}) {
  const sink = new FakeSink();
  const { logger, lines } = memoryLogger();
  let clock = new Date('2026-11-23T10:00:00Z');
  const intake = new AuditIntake({ sink, logger, now: () => clock, ...options });
  return { sink, lines, intake, advance: (ms: number) => (clock = new Date(clock.getTime() + ms)) };
}

describe('AuditIntake', () => {
  it('keeps raw, and settles, the messages a parser answered nothing for', async () => {
    // A parser that loses the second half of every batch: nothing it lost may stay counted in flight.
    const halving: AuditParser = { parse: async (texts, times) => (await inlineAuditParser.parse(texts, times)).slice(0, Math.ceil(texts.length / 2)), close: async () => undefined };
    const { sink, intake } = setup({ parser: halving });
    for (let i = 0; i < 4; i++) intake.receive(Buffer.from(rfc5424(sample('dicom-pix-query'))), tcpPeer);
    await intake.settled();
    expect(sink.added).toHaveLength(4);
    expect(sink.added.slice(2).map((a) => a.rawMessage)).toEqual([rfc5424(sample('dicom-pix-query')), rfc5424(sample('dicom-pix-query'))]);
    expect(sink.added[3]?.activeParticipant).toEqual([]);
    expect(intake.stats()).toMatchObject({ received: 4, stored: 4, malformed: 2, inFlight: 0 });
  });

  it('gathers messages while a batch is at the parser, sends them together when it answers (a full batch at once), and stores all', async () => {
    const calls: number[] = [];
    const answers: (() => void)[] = [];
    const slow: AuditParser = {
      parse: (texts, times) => {
        calls.push(texts.length);
        return new Promise((resolve) => answers.push(() => resolve(inlineAuditParser.parse(texts, times))));
      },
      close: async () => undefined,
    };
    const { sink, intake } = setup({ parser: slow });
    const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    const message = Buffer.from(rfc5424(sample('dicom-pix-query')));
    intake.receive(message, tcpPeer);
    await turn();
    expect(calls).toEqual([1]);
    for (let i = 0; i < 3; i++) {
      intake.receive(message, tcpPeer);
      intake.receive(message, tcpPeer);
      await turn();
    }
    // Three turns' messages wait, as one batch, for the parser's answer.
    expect(calls).toEqual([1]);
    answers.shift()?.();
    await turn();
    expect(calls).toEqual([1, 6]);
    // A batch that reaches the most a batch holds goes at once, busy parser or not; the rest waits again.
    for (let i = 0; i < 502; i++) intake.receive(message, tcpPeer);
    expect(calls).toEqual([1, 6, 500]);
    await turn();
    answers.shift()?.();
    await turn();
    expect(calls).toEqual([1, 6, 500]);
    answers.shift()?.();
    await turn();
    expect(calls).toEqual([1, 6, 500, 2]);
    answers.shift()?.();
    await intake.settled();
    expect(sink.added).toHaveLength(509);
    expect(sink.added.every((audit) => audit.eventIdentification.eventID?.code === '110112')).toBe(true);
    expect(intake.stats()).toMatchObject({ received: 509, stored: 509, malformed: 0, inFlight: 0 });
  });

  it('sends the waiting batch even when the parser fails the one before it, and keeps both raw', async () => {
    const calls: number[] = [];
    const failures: (() => void)[] = [];
    const failing: AuditParser = {
      parse: (texts) => {
        calls.push(texts.length);
        return new Promise((_resolve, reject) => failures.push(() => reject(new Error('parser gone'))));
      },
      close: async () => undefined,
    };
    const { sink, intake } = setup({ parser: failing });
    const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    const message = Buffer.from(rfc5424(sample('dicom-pix-query')));
    intake.receive(message, tcpPeer);
    await turn();
    intake.receive(message, tcpPeer);
    intake.receive(message, tcpPeer);
    await turn();
    expect(calls).toEqual([1]);
    failures.shift()?.();
    await turn();
    expect(calls).toEqual([1, 2]);
    failures.shift()?.();
    await intake.settled();
    expect(sink.added.map((audit) => audit.rawMessage)).toEqual([message.toString(), message.toString(), message.toString()]);
    expect(intake.stats()).toMatchObject({ received: 3, stored: 3, malformed: 3, inFlight: 0 });
  });

  it('stores a received audit, parsed, and counts it per transport', async () => {
    const { sink, intake } = setup();
    const message = rfc5424(sample('dicom-pix-query'));
    expect(intake.receive(Buffer.from(message), tcpPeer)).toBe(true);
    await intake.settled();
    expect(sink.added).toHaveLength(1);
    expect(sink.added[0]?.rawMessage).toBe(message);
    expect(sink.added[0]?.eventIdentification.eventID?.code).toBe('110112');
    const stats = intake.stats();
    expect(stats).toMatchObject({ received: 1, stored: 1, malformed: 0, failed: 0, dropped: 0, inFlight: 0 });
    expect(stats.byTransport.tcp).toEqual({ received: 1, stored: 1, malformed: 0, failed: 0, dropped: 0 });
    expect(stats.byTransport.udp.received).toBe(0);
  });

  it('stores a malformed message raw, counts it, and warns once per interval naming the peer and problem', async () => {
    const { sink, intake, lines, advance } = setup();
    for (let i = 0; i < 5; i++) intake.receive(Buffer.from(rfc3164('not xml at all')), udpPeer);
    await intake.settled();
    expect(sink.added).toHaveLength(5);
    expect(sink.added[0]).toEqual({
      rawMessage: rfc3164('not xml at all'),
      syslog: expect.anything() as unknown,
      eventIdentification: { eventDateTime: new Date('2026-11-23T10:00:00Z') },
      activeParticipant: [],
      participantObjectIdentification: [],
    });
    expect(intake.stats()).toMatchObject({ received: 5, stored: 5, malformed: 5 });
    let warnings = lines.filter((l) => l.level === 40);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ peer: { address: '10.20.0.13', transport: 'udp' }, suppressed: 0 });
    expect(String(warnings[0]?.problem)).toMatch(/not well-formed XML/);

    advance(60_000);
    intake.receive(Buffer.from('junk'), udpPeer);
    await intake.settled();
    warnings = lines.filter((l) => l.level === 40);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatchObject({ suppressed: 4 });
  });

  it('stores a message with invalid UTF-8 raw as malformed, header still read', async () => {
    const { sink, intake, lines } = setup();
    const bytes = Buffer.concat([Buffer.from(rfc5424('<AuditMessage>')), Buffer.from([0xc3, 0x28]), Buffer.from('</AuditMessage>')]);
    intake.receive(bytes, tcpPeer);
    await intake.settled();
    expect(sink.added[0]?.syslog?.type).toBe('RFC5424');
    expect(sink.added[0]?.activeParticipant).toEqual([]);
    expect(intake.stats().malformed).toBe(1);
    expect(lines.some((l) => l.problem === 'not valid UTF-8')).toBe(true);
  });

  it('counts and logs a failed write, rejected or thrown, without throwing at the listener', async () => {
    const { sink, intake, lines } = setup();
    sink.mode = 'fail';
    expect(() => intake.receive(Buffer.from(sample('rfc3881-login')), tcpPeer)).not.toThrow();
    sink.mode = 'throw';
    expect(() => intake.receive(Buffer.from(sample('rfc3881-login')), tcpPeer)).not.toThrow();
    await intake.settled();
    expect(intake.stats()).toMatchObject({ received: 2, stored: 0, failed: 2, inFlight: 0 });
    const errors = lines.filter((l) => l.level === 50);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.msg).toBe('could not store a received audit message');
  });

  it('settles only when every write in flight has finished', async () => {
    const { sink, intake } = setup();
    sink.mode = 'hold';
    intake.receive(Buffer.from(sample('rfc3881-login')), tcpPeer);
    intake.receive(Buffer.from(sample('dicom-app-start')), tcpPeer);
    let settled = false;
    const done = intake.settled().then(() => (settled = true));
    // Messages received in one turn are parsed together once it ends, then written.
    await new Promise((resolve) => setImmediate(resolve));
    expect(sink.held).toHaveLength(2);
    sink.held[0]?.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    expect(intake.stats().inFlight).toBe(1);
    sink.held[1]?.reject(new Error('late failure'));
    await done;
    expect(intake.stats()).toMatchObject({ stored: 1, failed: 1, inFlight: 0 });
  });

  it('answers false past the high-water mark, tells when to resume, and drops past twice it', async () => {
    const { sink, intake, lines } = setup({ highWater: 4 });
    sink.mode = 'hold';
    const message = Buffer.from(sample('rfc3881-login'));
    const answers = Array.from({ length: 10 }, () => intake.receive(message, tcpPeer));
    expect(answers).toEqual([true, true, true, false, false, false, false, false, false, false]);
    expect(intake.overloaded()).toBe(true);
    expect(intake.stats()).toMatchObject({ received: 10, dropped: 2, inFlight: 8 });
    expect(lines.filter((l) => String(l.msg).includes('dropped'))).toHaveLength(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sink.held).toHaveLength(8);

    let ready = false;
    const resumed = intake.whenReady().then(() => (ready = true));
    for (const write of sink.held.splice(0, 6)) write.resolve();
    await new Promise((resolve) => setImmediate(resolve));
    expect(ready).toBe(false); // two in flight: not yet below half of four
    sink.held.shift()?.resolve();
    await resumed;
    expect(intake.overloaded()).toBe(false);
    expect(intake.receive(message, tcpPeer)).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    for (const write of sink.held.splice(0)) write.resolve();
    await intake.settled();
    expect(intake.stats()).toMatchObject({ received: 11, stored: 9, dropped: 2, inFlight: 0 });
  });
});
