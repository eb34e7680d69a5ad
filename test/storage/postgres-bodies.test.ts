/**
 * What only the PostgreSQL body store does: bodies shared by instances on one database, chunk rows committed by the
 * body's row, and a 100 MB body moved without holding it. What every engine does is in bodies-contract.ts.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { Bodies } from '../../service/storage/bodies/bodies.js';
import { createPostgresBodies, PostgresDatabase } from '../../service/storage/postgres/index.js';
import { CHUNK_BYTES } from '../../service/storage/postgres/bodies.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';

const silent = pino({ level: 'silent' });
const DAY = '2026-11-20';
let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

async function url(): Promise<string> {
  database ??= createTestDatabase();
  return (await database).url;
}

const opened: Bodies[] = [];
afterEach(async () => {
  for (const bodies of opened.splice(0)) await bodies.close();
});

/** A store on `schema`, opened, as one instance of a cluster would have it (its own pool). */
async function instance(schema: string): Promise<Bodies> {
  const bodies = createPostgresBodies(new PostgresDatabase({ settings: settingsFor(await url()), logger: silent, schema }));
  await bodies.open();
  opened.push(bodies);
  return bodies;
}

async function rows(schema: string, sql: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  return (await runSql(await url(), sql.replaceAll('$schema', schema), values)).rows as Record<string, unknown>[];
}

/** Full garbage collection, reached by turning the flag on at run time (vitest's workers are not started with it). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // The second collection finishes the first one's background freeing of dead Buffers.
  gc();
  gc();
}

function write(stream: NodeJS.WritableStream, chunk: Buffer): Promise<void> {
  return new Promise((resolve, reject) => stream.write(chunk, (err) => (err === undefined || err === null ? resolve() : reject(err))));
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('PostgreSQL bodies', () => {
  it('streams a 100 MB body in and out in 256 KB rows while the process\'s RSS grows by far less than the body', async () => {
    const schema = newSchemaName();
    const bodies = await instance(schema);
    const chunk = Buffer.alloc(64 * 1024);
    for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 31) % 251;
    const total = 100 * 1024 * 1024;
    // RSS after a full collection: what the process holds, not garbage the collector has yet to reach (between
    // collections every engine's socket and row buffers pile up to V8's external-memory threshold, tens of MB).
    const held = () => {
      collectGarbage();
      return process.memoryUsage().rss;
    };
    const before = held();
    let peak = 0;
    const sample = () => {
      peak = Math.max(peak, held() - before);
    };
    async function* source() {
      for (let sent = 0; sent < total; sent += chunk.length) {
        if (sent % (4 * 1024 * 1024) === 0) sample();
        yield chunk;
      }
    }
    const sink = bodies.sink({ day: DAY, channelId: 'ch1', bodyId: 'huge', capBytes: 200 * 1024 * 1024 });
    await pipeline(Readable.from(source()), sink.stream);
    const ref = await sink.done;
    expect(ref).toMatchObject({ size: total, truncated: false });

    const hash = createHash('sha256');
    let read = 0;
    let sampledAt = 0;
    for await (const part of await bodies.openRead(ref)) {
      hash.update(part as Buffer);
      read += (part as Buffer).length;
      if (read - sampledAt >= 4 * 1024 * 1024) {
        sampledAt = read;
        sample();
      }
    }
    sample();
    const expected = createHash('sha256');
    for (let sent = 0; sent < total; sent += chunk.length) expected.update(chunk);
    expect(read).toBe(total);
    expect(hash.digest('hex')).toBe(expected.digest('hex'));
    expect(await rows(schema, 'SELECT count(*)::int AS n, max(length(data)) AS largest FROM $schema.body_chunks')).toEqual([{ n: total / CHUNK_BYTES, largest: CHUNK_BYTES }]);
    // Holding the body, or its rows, would add 100 MB or more. Measured here: about 10 MB while writing and 10 to 40 MB
    // while reading, flat from the first MB to the last (the allocator's slack from each row's 512 KB of hex text).
    expect(peak).toBeLessThan(50 * 1024 * 1024);
  });

  it('lets one instance read the bodies another stores, while both are running', async () => {
    const schema = newSchemaName();
    const [a, b] = [await instance(schema), await instance(schema)];
    const small = Buffer.from('MSH|^~\\&|LAB|CLINIC|||20261120||ORU^R01|1|P|2.5\r');
    const large = Buffer.alloc(CHUNK_BYTES * 2 + 5, 0x71);
    const sinkSmall = a.sink({ day: DAY, channelId: 'ch1', bodyId: 'small', capBytes: 1024 * 1024 });
    await pipeline(Readable.from([small]), sinkSmall.stream);
    const sinkLarge = a.sink({ day: DAY, channelId: 'ch1', bodyId: 'large', capBytes: 1024 * 1024 });
    await pipeline(Readable.from([large]), sinkLarge.stream);
    expect(await b.readText(await sinkSmall.done)).toBe(small.toString());
    expect(await readAll(await b.openRead(await sinkLarge.done))).toEqual(large);
    expect(await rows(schema, 'SELECT path, size::int, chunks, data IS NULL AS chunked FROM $schema.bodies ORDER BY path')).toEqual([
      { path: `${DAY}/ch1/large`, size: large.length, chunks: 3, chunked: true },
      { path: `${DAY}/ch1/small`, size: small.length, chunks: 0, chunked: false },
    ]);
  });

  it('shows another instance nothing of a body until its last chunk is in, then all of it', async () => {
    const schema = newSchemaName();
    const [a, b] = [await instance(schema), await instance(schema)];
    const sink = a.sink({ day: DAY, channelId: 'ch1', bodyId: 'slow', capBytes: 10 * 1024 * 1024 });
    for (let i = 0; i < 12; i++) await write(sink.stream, Buffer.alloc(64 * 1024, i));
    expect(await rows(schema, 'SELECT count(*)::int AS n FROM $schema.body_chunks')).toEqual([{ n: 3 }]);
    const ref = { path: `${DAY}/ch1/slow` };
    await expect(b.openRead(ref)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await b.days()).toEqual([]);
    sink.stream.end(Buffer.alloc(10, 0x7a));
    await sink.done;
    const body = await readAll(await b.openRead(ref));
    expect(body.length).toBe(12 * 64 * 1024 + 10);
    expect(body.subarray(-11)).toEqual(Buffer.from([11, ...Buffer.alloc(10, 0x7a)]));
  });

  it('deletes the chunks of an aborted body, and retention deletes chunks left by an instance that died mid-body', async () => {
    const schema = newSchemaName();
    const bodies = await instance(schema);
    const sink = bodies.sink({ day: DAY, channelId: 'ch1', bodyId: 'cut', capBytes: 10 * 1024 * 1024 });
    for (let i = 0; i < 9; i++) await write(sink.stream, Buffer.alloc(64 * 1024, i));
    expect(await rows(schema, 'SELECT count(*)::int AS n FROM $schema.body_chunks')).toEqual([{ n: 2 }]);
    sink.stream.destroy(new Error('cut short'));
    await new Promise((resolve) => sink.stream.once('close', resolve));
    expect(await rows(schema, 'SELECT count(*)::int AS n FROM $schema.body_chunks')).toEqual([{ n: 0 }]);

    // What a killed process leaves: chunks without their body's row.
    await rows(schema, `INSERT INTO $schema.body_chunks (path, n, day, channel, data) VALUES ('2026-11-01/ch1/dead', 0, '2026-11-01', 'ch1', '\\x00'), ('2026-11-02/ch2/dead', 0, '2026-11-02', 'ch2', '\\x00')`);
    expect(await bodies.removeChannelBodiesBefore('ch2', '2026-11-05')).toEqual([]);
    expect(await bodies.removeDaysBefore('2026-11-05')).toEqual([]);
    expect(await rows(schema, 'SELECT count(*)::int AS n FROM $schema.body_chunks')).toEqual([{ n: 0 }]);
  });

  it('stores many small bodies written at once, failing only the one whose path is taken', async () => {
    const schema = newSchemaName();
    const bodies = await instance(schema);
    const taken = bodies.sink({ day: DAY, channelId: 'ch1', bodyId: 'b7', capBytes: 1024 });
    await pipeline(Readable.from([Buffer.from('first')]), taken.stream);
    await taken.done;
    const sinks = Array.from({ length: 60 }, (_, i) => bodies.sink({ day: DAY, channelId: 'ch1', bodyId: `b${i}`, capBytes: 1024 }));
    // All ended in one turn, so their rows wait for the same INSERTs.
    for (const [i, sink] of sinks.entries()) sink.stream.end(Buffer.from(`body ${i}`));
    const outcomes = await Promise.allSettled(sinks.map((sink) => sink.done));
    expect(outcomes.map((o) => o.status)).toEqual(sinks.map((_, i) => (i === 7 ? 'rejected' : 'fulfilled')));
    expect(String((outcomes[7] as PromiseRejectedResult).reason)).toMatch(/duplicate key/);
    for (const i of [0, 8, 59]) expect(await bodies.readText({ path: `${DAY}/ch1/b${i}` })).toBe(`body ${i}`);
    expect(await bodies.readText({ path: `${DAY}/ch1/b7` })).toBe('first');
    expect(await rows(schema, 'SELECT count(*)::int AS n FROM $schema.bodies')).toEqual([{ n: 60 }]);
  });

  it('fails a reader with ENOENT when retention removes the body it is reading, rather than ending it short', async () => {
    const schema = newSchemaName();
    const bodies = await instance(schema);
    const sink = bodies.sink({ day: '2026-11-01', channelId: 'ch1', bodyId: 'old', capBytes: 10 * 1024 * 1024 });
    await pipeline(Readable.from([Buffer.alloc(CHUNK_BYTES * 3, 0x6f)]), sink.stream);
    const reader = await bodies.openRead(await sink.done);
    const first = (await new Promise<Buffer>((resolve) => reader.once('data', resolve)));
    reader.pause();
    expect(first.length).toBe(CHUNK_BYTES);
    expect(await bodies.removeDaysBefore('2026-11-02')).toEqual(['2026-11-01']);
    await expect(readAll(reader)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses to store a body under a path already stored, and the first body stays whole', async () => {
    const schema = newSchemaName();
    const bodies = await instance(schema);
    const first = bodies.sink({ day: DAY, channelId: 'ch1', bodyId: 'twice', capBytes: 1024 * 1024 });
    await pipeline(Readable.from([Buffer.from('first')]), first.stream);
    const again = bodies.sink({ day: DAY, channelId: 'ch1', bodyId: 'twice', capBytes: 1024 * 1024 });
    await expect(pipeline(Readable.from([Buffer.from('second')]), again.stream)).rejects.toThrow(/duplicate key/);
    await expect(again.done).rejects.toThrow(/duplicate key/);
    expect(await bodies.readText(await first.done)).toBe('first');
  });
});
