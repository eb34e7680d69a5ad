/**
 * The body store contract, run against every engine (bodies-engines.test.ts): what the pipeline, the API and
 * retention rely on, whichever engine keeps the bytes.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bodies, BodyRef } from '../../service/storage/bodies/bodies.js';

export interface BodiesFixture {
  bodies: Bodies;
  /** Where the store keeps its data; passed back to open another store on the same data. */
  location: string;
  /** Closes the store and removes its data (only once every store on `location` is closed). */
  cleanup: () => Promise<void>;
}

/** Makes a store, new and empty, or on the data at `location`; it is not opened yet. */
export type BodiesFactory = (location?: string) => Promise<BodiesFixture>;

const DAY = '2026-11-20';

/** Deterministic bytes that differ from chunk to chunk, so a chunk read twice or out of order shows. */
function bytes(length: number, seed = 1): Buffer {
  const out = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out[i] = x >>> 16;
  }
  return out;
}

/** Full garbage collection, reached by turning the flag on at run time (vitest's workers are not started with it). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // The second collection finishes the first one's background freeing of dead Buffers.
  gc();
  gc();
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Cuts `data` into pieces of uneven sizes, as a socket delivers them. */
function pieces(data: Buffer): Buffer[] {
  const out: Buffer[] = [];
  const sizes = [1000, 65_536, 7, 100_003, 16_384];
  for (let at = 0, i = 0; at < data.length; i++) {
    const size = sizes[i % sizes.length]!;
    out.push(data.subarray(at, at + size));
    at += size;
  }
  return out;
}

async function store(bodies: Bodies, body: Buffer | Readable, capBytes: number, bodyId = 'b1', day = DAY, channelId = 'ch1'): Promise<BodyRef> {
  const sink = bodies.sink({ day, channelId, bodyId, capBytes });
  await pipeline(Buffer.isBuffer(body) ? Readable.from(pieces(body)) : body, sink.stream);
  return sink.done;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Writes `chunk` and waits until the sink has taken it (stored it, or decided it needs no storing yet). */
function write(stream: NodeJS.WritableStream, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => stream.write(chunk, (err) => (err === undefined || err === null ? resolve() : reject(err))));
}

/** Registers the body store contract for one engine. */
export function describeBodiesContract(engine: string, factory: BodiesFactory): void {
  describe(`bodies contract: ${engine}`, () => {
    const open: BodiesFixture[] = [];
    afterEach(async () => {
      // Stores on shared data close first, then each cleans up.
      for (const fixture of open.splice(0).reverse()) await fixture.cleanup();
    });

    async function fresh(location?: string): Promise<BodiesFixture> {
      const fixture = await factory(location);
      open.push(fixture);
      await fixture.bodies.open();
      return fixture;
    }

    it('stores a small body and reads it back unchanged, as a stream and as text', async () => {
      const { bodies } = await fresh();
      const body = Buffer.from('{"resourceType":"Patient","name":"Thandi"}');
      const ref = await store(bodies, body, 1024);
      expect(ref).toEqual({ path: `${DAY}/ch1/b1`, size: body.length, receivedBytes: body.length, truncated: false });
      expect(await bodies.readText(ref)).toBe(body.toString());
      expect(await readAll(await bodies.openRead(ref))).toEqual(body);
      expect(await readAll(bodies.read(ref))).toEqual(body);
    });

    it('stores large bodies of several sizes and reads each back byte for byte', async () => {
      const { bodies } = await fresh();
      // Around the small-body limit, around a 256 KB chunk, and several chunks with a short last one.
      const sizes = [64 * 1024, 64 * 1024 + 1, 256 * 1024 - 1, 256 * 1024, 256 * 1024 + 1, 1_500_000];
      for (const [i, size] of sizes.entries()) {
        const body = bytes(size, i + 1);
        const ref = await store(bodies, body, 10 * 1024 * 1024, `large${i}`);
        expect(ref).toMatchObject({ size, receivedBytes: size, truncated: false });
        expect(sha256(await readAll(await bodies.openRead(ref)))).toBe(sha256(body));
      }
      const ref = { path: `${DAY}/ch1/large5` };
      expect(Buffer.from(await bodies.readText(ref, 10, 'latin1'), 'latin1')).toEqual(bytes(1_500_000, 6).subarray(0, 10));
    });

    it('reads back through another store opened on the same data', async () => {
      const first = await fresh();
      const small = Buffer.from('MSH|^~\\&|LAB|CLINIC|||20261120||ORU^R01|1|P|2.5\r');
      const large = bytes(700_000, 9);
      const smallRef = await store(first.bodies, small, 1024 * 1024, 'small');
      const largeRef = await store(first.bodies, large, 1024 * 1024, 'large');
      await first.bodies.close();
      const second = await fresh(first.location);
      expect(await second.bodies.readText(smallRef)).toBe(small.toString());
      expect(await second.bodies.readText(smallRef, 3)).toBe('MSH');
      expect(sha256(await readAll(await second.bodies.openRead(largeRef)))).toBe(sha256(large));
      expect(await second.bodies.days()).toEqual([DAY]);
    });

    it('stores an empty body, which reads back empty', async () => {
      const { bodies } = await fresh();
      const ref = await store(bodies, Buffer.alloc(0), 10);
      expect(ref).toMatchObject({ size: 0, receivedBytes: 0, truncated: false });
      expect(await bodies.readText(ref)).toBe('');
      expect((await readAll(await bodies.openRead(ref))).length).toBe(0);
    });

    it('keeps only the first capBytes of a longer body, counts what was sent and marks it truncated', async () => {
      const { bodies } = await fresh();
      const short = await store(bodies, Readable.from([Buffer.from('abcdef'), Buffer.from('ghij'), Buffer.from('klm')]), 8, 'short');
      expect(short).toMatchObject({ size: 8, receivedBytes: 13, truncated: true });
      expect(await bodies.readText(short)).toBe('abcdefgh');
      const body = bytes(1_000_000, 3);
      const long = await store(bodies, body, 300_000, 'long');
      expect(long).toMatchObject({ size: 300_000, receivedBytes: 1_000_000, truncated: true });
      expect(sha256(await readAll(await bodies.openRead(long)))).toBe(sha256(body.subarray(0, 300_000)));
      const exact = await store(bodies, bytes(1000), 1000, 'exact');
      expect(exact).toMatchObject({ size: 1000, receivedBytes: 1000, truncated: false });
    });

    it('streams a 50 MB body in and out with backpressure, never holding it in memory', async () => {
      const { bodies } = await fresh();
      const chunk = bytes(64 * 1024, 5);
      const count = (50 * 1024 * 1024) / chunk.length;
      // Memory still held after a collection, sampled as the body moves: garbage waiting to be collected is no defect.
      const held = () => {
        collectGarbage();
        const now = process.memoryUsage();
        return now.heapUsed + now.arrayBuffers;
      };
      const before = held();
      let peak = 0;
      const sample = () => {
        peak = Math.max(peak, held() - before);
      };
      async function* source() {
        for (let i = 0; i < count; i++) {
          if (i % 64 === 32) sample();
          yield chunk;
        }
      }
      const ref = await store(bodies, Readable.from(source()), 100 * 1024 * 1024);
      expect(ref).toMatchObject({ size: 50 * 1024 * 1024, truncated: false });
      let read = 0;
      let sampledAt = 0;
      const hash = createHash('sha256');
      for await (const part of await bodies.openRead(ref)) {
        read += (part as Buffer).length;
        hash.update(part as Buffer);
        if (read - sampledAt >= 4 * 1024 * 1024) {
          sampledAt = read;
          sample();
        }
      }
      expect(read).toBe(50 * 1024 * 1024);
      const expected = createHash('sha256');
      for (let i = 0; i < count; i++) expected.update(chunk);
      expect(hash.digest('hex')).toBe(expected.digest('hex'));
      // Were the sink or the reader to buffer the body instead of waiting on the store, this would pass 40 MB; a few
      // MB come and go between samples in every engine (stream and socket buffers).
      expect(peak).toBeLessThan(16 * 1024 * 1024);
    });

    it('leaves nothing readable of a body whose stream is aborted midway, and rejects its done', async () => {
      const { bodies } = await fresh();
      const sink = bodies.sink({ day: DAY, channelId: 'ch1', bodyId: 'cut', capBytes: 10 * 1024 * 1024 });
      // Past the small-body limit and past two 256 KB chunks, so both engines have written part of it.
      for (let i = 0; i < 10; i++) await write(sink.stream, bytes(64 * 1024, i));
      sink.stream.destroy(new Error('the client closed the connection before sending the whole request'));
      await expect(sink.done).rejects.toThrow(/closed the connection/);
      if (!sink.stream.closed) await new Promise((resolve) => sink.stream.once('close', resolve));
      const ref = { path: `${DAY}/ch1/cut` };
      await expect(bodies.openRead(ref)).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(bodies.readText(ref)).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('answers ENOENT for a body that was never stored', async () => {
      const { bodies } = await fresh();
      const ref = { path: `${DAY}/ch1/never` };
      await expect(bodies.openRead(ref)).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(bodies.readText(ref)).rejects.toThrow(/ENOENT/);
      await expect(readAll(bodies.read(ref))).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await bodies.days()).toEqual([]);
    });

    it('refuses paths and segments that could name something outside the store', async () => {
      const { bodies } = await fresh();
      expect(() => bodies.sink({ day: '../etc', channelId: 'ch1', bodyId: 'x', capBytes: 1 })).toThrow(RangeError);
      expect(() => bodies.sink({ day: DAY, channelId: '../../x', bodyId: 'x', capBytes: 1 })).toThrow(RangeError);
      expect(() => bodies.sink({ day: DAY, channelId: 'ch1', bodyId: 'a/b', capBytes: 1 })).toThrow(RangeError);
      expect(() => bodies.read({ path: `${DAY}/ch1/../../../etc/passwd` })).toThrow(RangeError);
      expect(() => bodies.read({ path: `${DAY}/ch1` })).toThrow(RangeError);
      await expect(bodies.openRead({ path: `${DAY}/ch1/b1/..` })).rejects.toThrow(RangeError);
      await expect(bodies.removeChannelBodiesBefore('../x', DAY)).rejects.toThrow(RangeError);
    });

    it('removes whole days for global retention and one channel\'s older days for maxBodyAgeDays', async () => {
      const { bodies } = await fresh();
      const refs = new Map<string, BodyRef>();
      for (const day of ['2026-11-01', '2026-11-10', '2026-11-20']) {
        refs.set(`keep ${day}`, await store(bodies, Buffer.from('x'), 10, 'b', day, 'keep'));
        refs.set(`short ${day}`, await store(bodies, Buffer.from('y'), 10, 'b', day, 'short'));
        // A large one each day too: retention takes all of a body, however it is kept.
        refs.set(`big ${day}`, await store(bodies, bytes(600_000), 1024 * 1024, 'big', day, 'short'));
      }
      expect(await bodies.days()).toEqual(['2026-11-01', '2026-11-10', '2026-11-20']);
      expect(await bodies.removeChannelBodiesBefore('short', '2026-11-15')).toEqual(['2026-11-01', '2026-11-10']);
      await expect(bodies.readText(refs.get('short 2026-11-10')!)).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(bodies.openRead(refs.get('big 2026-11-10')!)).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await bodies.readText(refs.get('keep 2026-11-10')!)).toBe('x');
      expect(await bodies.readText(refs.get('short 2026-11-20')!)).toBe('y');
      expect((await readAll(await bodies.openRead(refs.get('big 2026-11-20')!))).length).toBe(600_000);
      expect(await bodies.removeChannelBodiesBefore('nobody', '2026-11-15')).toEqual([]);

      expect(await bodies.removeDaysBefore('2026-11-10')).toEqual(['2026-11-01']);
      expect(await bodies.days()).toEqual(['2026-11-10', '2026-11-20']);
      await expect(bodies.readText(refs.get('keep 2026-11-01')!)).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await bodies.readText(refs.get('keep 2026-11-10')!)).toBe('x');
      expect(await bodies.removeDaysBefore('2026-11-10')).toEqual([]);
    });
  });
}
