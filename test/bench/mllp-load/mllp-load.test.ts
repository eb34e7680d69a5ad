/**
 * The MLLP benchmark's C programs against each other and against Junction's own MLLP and HL7 reading: the generator
 * sends what it claims (framed 1 KB ORU^R01 with unique MSH-10), the ACK server answers what a receiver would, and
 * every kind of wrong reply is counted as an error rather than a message. Real sockets on 127.0.0.1.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ackCodeOf, readHeader } from '../../../service/domain/codecs/hl7.js';
import { MllpDecoder, frameMllp } from '../../../service/domain/codecs/mllp-framing.js';
import { compileMllpPrograms, runMllpLoad, startAckServer } from './programs.js';
import type { AckServerReply, MllpPrograms, RunningAckServer } from './programs.js';

let dir: string;
let programs: MllpPrograms;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'junction-mllp-load-'));
  programs = await compileMllpPrograms(dir);
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function withAckServer<T>(options: { reply?: AckServerReply; badEvery?: number }, use: (server: RunningAckServer) => Promise<T>): Promise<T> {
  const server = await startAckServer(programs, options);
  try {
    return await use(server);
  } finally {
    await server.stop();
  }
}

describe('mllp-load against mllp-ack-server', () => {
  it('counts answered messages with latencies and no errors when every reply is AA', async () => {
    const result = await withAckServer({}, (server) => runMllpLoad(programs, { port: server.port, connections: 4, seconds: 0.5, warmupSeconds: 0.1 }));
    expect(result.errors).toBe(0);
    expect(result.messages).toBeGreaterThan(100);
    expect(result.connections).toBe(4);
    expect(result.connects).toBe(4);
    expect(result.p50Ms).not.toBeNull();
    expect(result.p50Ms ?? Infinity).toBeLessThanOrEqual(result.p99Ms ?? 0);
    expect(result.messageBytes).toBe(1024);
  });

  // Each wrong answer, once every 10 messages: counted as an error of its kind, and the run goes on.
  it.each([
    ['ae', 'badReplies'],
    ['wrong-id', 'badReplies'],
    ['unframed', 'badReplies'],
    ['close', 'connectionErrors'],
  ] as const)('counts a %s reply as an error (%s) and carries on', async (reply, kind) => {
    const result = await withAckServer({ reply, badEvery: 10 }, (server) => runMllpLoad(programs, { port: server.port, connections: 2, seconds: 0.4, warmupSeconds: 0 }));
    expect(result[kind]).toBeGreaterThan(0);
    expect(result.errors).toBe(result[kind]);
    // About one in ten: the other nine still count as messages.
    expect(result.messages).toBeGreaterThan(result.errors * 5);
  });

  it('times out a reply that never comes, reconnects, and still ends on time', async () => {
    const started = performance.now();
    const result = await withAckServer({ reply: 'none', badEvery: 5 }, (server) => runMllpLoad(programs, { port: server.port, connections: 2, seconds: 0.6, warmupSeconds: 0, timeoutMs: 100 }));
    expect(result.timeouts).toBeGreaterThan(0);
    expect(result.connects).toBeGreaterThan(2);
    expect(result.messages).toBeGreaterThan(0);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('counts connection errors, without spinning, when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const result = await runMllpLoad(programs, { port, connections: 2, seconds: 0.3, warmupSeconds: 0 });
    expect(result.messages).toBe(0);
    expect(result.p50Ms).toBeNull();
    expect(result.connectionErrors).toBeGreaterThan(0);
    // A 20 ms pause after each refusal: about 15 per connection in 0.3 s, not thousands.
    expect(result.connectionErrors).toBeLessThan(100);
  });
});

describe('mllp-load as Junction reads it', () => {
  it('sends framed 1 KB ORU^R01 messages with a unique MSH-10 each', async () => {
    const controlIds: string[] = [];
    const problems: string[] = [];
    const sizes = new Set<number>();
    const server: Server = createServer((socket: Socket) => {
      const decoder = new MllpDecoder({ maxMessageBytes: 1 << 20 });
      socket.on('error', () => undefined);
      socket.on('data', (chunk: Buffer) => {
        const { messages, problem } = decoder.push(chunk);
        if (problem !== undefined) problems.push(problem);
        for (const message of messages) {
          const header = readHeader(message);
          if (header === null || header.messageType !== 'ORU^R01^ORU_R01') {
            problems.push(`not an ORU^R01: ${message.toString('latin1').slice(0, 80)}`);
            continue;
          }
          sizes.add(message.length);
          controlIds.push(header.controlId);
          socket.write(frameMllp(Buffer.from(`MSH|^~\\&|LAB|HOSPITAL|BENCH|CLINIC|20260101120000||ACK^R01^ACK|A${header.controlId}|P|2.5.1\rMSA|AA|${header.controlId}\r`)));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const result = await runMllpLoad(programs, { port: (server.address() as AddressInfo).port, connections: 3, seconds: 0.3, warmupSeconds: 0 });
      expect(problems).toEqual([]);
      expect(result.errors).toBe(0);
      expect(controlIds.length).toBeGreaterThanOrEqual(result.messages);
      expect(new Set(controlIds).size).toBe(controlIds.length);
      expect([...sizes]).toEqual([1024]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('gets from mllp-ack-server an AA naming the message, the sender and receiver swapped, one ACK per message', async () => {
    await withAckServer({}, async (server) => {
      const socket = createConnection({ host: '127.0.0.1', port: server.port });
      const decoder = new MllpDecoder({ maxMessageBytes: 1 << 20 });
      const acks: Buffer[] = [];
      const message = (id: string) => Buffer.from(`MSH|^~\\&|SEND|CLINIC|RECV|HOSPITAL|20260101120000||ORU^R01^ORU_R01|${id}|P|2.5.1\rPID|1\r`);
      // Two messages in one write, the second split across writes, with bytes before the first frame.
      const both = Buffer.concat([Buffer.from('noise'), frameMllp(message('ID-1')), frameMllp(message('ID-2'))]);
      const cut = both.length - 20;
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${acks.length} ACKs within 5 s`)), 5000);
        socket.on('error', reject);
        socket.on('data', (chunk: Buffer) => {
          acks.push(...decoder.push(chunk).messages);
          if (acks.length >= 2) {
            clearTimeout(timer);
            resolve();
          }
        });
        socket.write(both.subarray(0, cut), () => socket.write(both.subarray(cut)));
      });
      socket.destroy();
      expect(acks.map((ack) => ackCodeOf(ack))).toEqual(['AA', 'AA']);
      const header = readHeader(acks[0] ?? Buffer.alloc(0));
      expect(header).toMatchObject({ sendingApplication: 'RECV', sendingFacility: 'HOSPITAL', receivingApplication: 'SEND', receivingFacility: 'CLINIC', version: '2.5.1' });
      expect(header?.messageType).toBe('ACK^R01^ACK');
      expect(acks.map((ack) => /MSA\|AA\|([^|\r]*)/.exec(ack.toString('latin1'))?.[1])).toEqual(['ID-1', 'ID-2']);
    });
  });
});
