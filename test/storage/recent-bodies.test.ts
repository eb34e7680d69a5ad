/**
 * The search indexer's hand-over (recent-bodies.ts) over each engine's body store: what it gives from memory is what
 * the engine stored (cut at the cap, decoded as asked), once; anything else comes from the engine.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Bodies, BodyRef } from '../../service/storage/bodies/bodies.js';
import { BodyFiles } from '../../service/storage/bodies/body-files.js';
import { RecentBodies } from '../../service/storage/bodies/recent-bodies.js';
import { createPostgresBodies, PostgresDatabase } from '../../service/storage/postgres/index.js';
import { tempDir } from '../helpers/junction.js';
import { createTestDatabase, newSchemaName, runSql, settingsFor } from '../helpers/postgres.js';
import type { TestDatabase } from '../helpers/postgres.js';

const silent = pino({ level: 'silent' });
const DAY = '2026-12-03';

let database: Promise<TestDatabase> | undefined;
afterAll(async () => {
  await (await database)?.drop();
});

const engines: { name: string; open: () => Promise<{ bodies: Bodies; cleanup: () => Promise<void> }> }[] = [
  {
    name: 'files',
    open: async () => {
      const dir = await tempDir('junction-recent-bodies-');
      const bodies = new BodyFiles(join(dir, 'bodies'));
      return { bodies, cleanup: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'PostgreSQL',
    open: async () => {
      database ??= createTestDatabase();
      const { url } = await database;
      const schema = newSchemaName();
      const bodies = createPostgresBodies(new PostgresDatabase({ settings: settingsFor(url), logger: silent, schema }));
      return { bodies, cleanup: () => runSql(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`).then(() => undefined) };
    },
  },
];

async function store(bodies: Bodies, chunks: Buffer[], capBytes: number, bodyId: string, channelId = 'ch1'): Promise<BodyRef> {
  const sink = bodies.sink({ day: DAY, channelId, bodyId, capBytes });
  await pipeline(Readable.from(chunks), sink.stream);
  return sink.done;
}

for (const engine of engines) {
  describe(`recent bodies over ${engine.name}`, () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const c of cleanups.splice(0)) await c();
    });

    async function opened(maxBytes?: number): Promise<{ inner: Bodies; recent: RecentBodies }> {
      const { bodies, cleanup } = await engine.open();
      const recent = new RecentBodies(bodies, maxBytes);
      await recent.open();
      cleanups.push(async () => {
        await recent.close();
        await cleanup();
      });
      return { inner: bodies, recent };
    }

    it('gives each stored body once from memory, as the engine stored it: in several chunks, cut at the cap, in its encoding', async () => {
      const { inner, recent } = await opened();
      const hl7 = ['MSH|^~\\&|LAB|CLINIC|||20261203||ORU^R01|1|P|2.5\r', 'PID|||1004^^^HOSP||Müller^Änne\r', 'OBX|1|TX|||note\r'].map((s) => Buffer.from(s));
      const whole = await store(recent, hl7, 1024, 'whole');
      const cut = await store(recent, hl7, 50, 'cut');
      const latin = await store(recent, [Buffer.from('PID|||7^^^H||Gr\u00fc\u00dfe', 'latin1')], 1024, 'latin');
      expect(cut).toMatchObject({ size: 50, truncated: true });
      // What memory gives is compared with what the engine holds, read from the engine itself.
      for (const [ref, limit, encoding] of [[whole, 1e6, 'utf-8'], [cut, 1e6, 'utf-8'], [latin, 1e6, 'latin1']] as const) {
        expect(await recent.readText(ref, limit, encoding)).toBe(await inner.readText(ref, limit, encoding));
      }
      expect(recent.counts).toEqual({ taken: 3, readBack: 0 });
      // Taken once: a second read is the engine's.
      expect(await recent.readText(whole, 3)).toBe('MSH');
      expect(recent.counts).toEqual({ taken: 3, readBack: 1 });
      const limited = await store(recent, hl7, 1024, 'limited');
      expect(await recent.readText(limited, 10)).toBe('MSH|^~\\&|L');
    });

    it('keeps at most maxBytes (the oldest go first), drops what retention removes, and keeps nothing of a sink that failed', async () => {
      const { recent } = await opened(100);
      const a = await store(recent, [Buffer.alloc(60, 'a')], 1024, 'a');
      const b = await store(recent, [Buffer.alloc(60, 'b')], 1024, 'b');
      const c = await store(recent, [Buffer.alloc(30, 'c')], 1024, 'c', 'ch2');
      expect(await recent.readText(b)).toBe('b'.repeat(60));
      expect(await recent.readText(a)).toBe('a'.repeat(60));
      expect(recent.counts).toEqual({ taken: 1, readBack: 1 });
      await recent.removeChannelBodiesBefore('ch2', '2026-12-04');
      await expect(recent.readText(c)).rejects.toMatchObject({ code: 'ENOENT' });
      const broken = recent.sink({ day: DAY, channelId: 'ch1', bodyId: 'broken', capBytes: 1024 });
      broken.stream.write(Buffer.from('half a mess'));
      broken.stream.destroy(new Error('the sender broke off'));
      await expect(broken.done).rejects.toThrow();
      await expect(recent.readText({ path: `${DAY}/ch1/broken` })).rejects.toMatchObject({ code: 'ENOENT' });
    });
  });
}
