/** The NeDB store: the storage contract, plus what only a file-based engine has (damaged files, compaction). */
import { appendFile, mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Datastore from 'nedb-promises';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createNedbStore } from '../../service/storage/nedb/index.js';
import { collectionSpecs } from '../../service/storage/collection-specs.js';
import { StoreError, StoreOpenError, UniqueConstraintError } from '../../service/storage/store.js';
import type { Store } from '../../service/storage/store.js';
import { describeStoreContract, newUser } from './contract.js';
import { memoryLogger } from '../helpers/logger.js';

const silent = pino({ level: 'silent' });

describeStoreContract('NeDB', async (location) => {
  const dataDir = location ?? (await mkdtemp(join(tmpdir(), 'junction-nedb-')));
  const store = createNedbStore({ dataDir, logger: silent });
  return {
    store,
    location: dataDir,
    cleanup: async () => {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});

const ERROR = 50;

describe('NeDB store', () => {
  const dirs: string[] = [];
  const stores: Store[] = [];

  async function tempDir(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'junction-nedb-'));
    dirs.push(dir);
    return dir;
  }

  function storeAt(dataDir: string, options: { logger?: Logger; compactionIntervalMs?: number } = {}): Store {
    const store = createNedbStore({ dataDir, logger: options.logger ?? silent, compactionIntervalMs: options.compactionIntervalMs });
    stores.push(store);
    return store;
  }

  /** A data folder whose users.db holds three users and has been closed cleanly. */
  async function folderWithUsers(): Promise<{ dataDir: string; file: string }> {
    const dataDir = await tempDir();
    const store = storeAt(dataDir);
    await store.open();
    for (const name of ['ann', 'ben', 'cat']) await store.users.insert(newUser({ email: `${name}@example.org`, firstname: name }));
    await store.close();
    return { dataDir, file: join(dataDir, 'users.db') };
  }

  /** Opens a store expected to fail and checks the failure is reported without touching the file. */
  async function expectOpenRefused(dataDir: string, file: string, message?: RegExp): Promise<StoreOpenError> {
    const before = await readFile(file);
    const store = storeAt(dataDir);
    const err = await store.open().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreOpenError);
    const openError = err as StoreOpenError;
    expect(openError.message).toContain(file);
    expect(openError.message).toMatch(/backup/);
    if (message) expect(openError.message).toMatch(message);
    expect(openError.file).toBe(file);
    expect(openError.collection).toBe('users');
    expect(await readFile(file)).toEqual(before);
    expect(store.health().state).toBe('failed');
    expect(store.health().problems).toEqual([{ collection: 'users', message: openError.message }]);
    await expect(store.users.find({})).rejects.toBeInstanceOf(StoreError);
    return openError;
  }

  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  describe('files', () => {
    it('creates the data folder (mode 0700) and one private <collection>.db per collection', async () => {
      const dataDir = join(await tempDir(), 'nested', 'data');
      const store = storeAt(dataDir);
      await store.open();
      await store.users.insert(newUser());
      await store.close();
      expect(((await stat(dataDir)).mode & 0o777).toString(8)).toBe('700');
      expect((await readdir(dataDir)).sort()).toEqual(Object.values(collectionSpecs).map((spec) => `${spec.name}.db`).sort());
      expect(((await stat(join(dataDir, 'users.db'))).mode & 0o777).toString(8)).toBe('600');
    });

    it('keeps what was written before close() after reopening', async () => {
      const { dataDir } = await folderWithUsers();
      const store = storeAt(dataDir);
      await store.open();
      expect((await store.users.find({}, { sort: { firstname: 1 } })).map((u) => u.firstname)).toEqual(['ann', 'ben', 'cat']);
    });

    it('compacts on close: the file holds one line per document plus its index definitions', async () => {
      const dataDir = await tempDir();
      const store = storeAt(dataDir);
      await store.open();
      const user = await store.users.insert(newUser());
      for (let i = 0; i < 5; i += 1) await store.users.updateById(user._id, { set: { firstname: `name ${i}` } });
      const appended = (await readFile(join(dataDir, 'users.db'), 'utf8')).trim().split('\n');
      expect(appended.length).toBeGreaterThan(5);
      await store.close();
      const lines = (await readFile(join(dataDir, 'users.db'), 'utf8')).trim().split('\n');
      expect(lines.filter((l) => l.includes('"_id"'))).toHaveLength(1);
      expect(lines.filter((l) => l.includes('$$indexCreated'))).toHaveLength(1);
      expect(lines.join('\n')).toContain('name 4');
    });

    it('stores strings holding U+2028, U+2029 and U+0085 so that they load again', async () => {
      const dataDir = await tempDir();
      const store = storeAt(dataDir);
      await store.open();
      const tricky = 'a\u2028b\u2029c\u0085d\r\ne';
      const user = await store.users.insert(newUser({ firstname: tricky }));
      await store.users.insert(newUser({ email: 'second@example.org' }));
      await store.close();
      expect(await readFile(join(dataDir, 'users.db'), 'utf8')).not.toMatch(/[\u2028\u2029\u0085]/);
      const again = storeAt(dataDir);
      await again.open();
      expect((await again.users.findById(user._id))?.firstname).toBe(tricky);
      expect(await again.users.count({})).toBe(2);
    });

    it('rebuilds indexes left in the file by an older layout to match the collection spec', async () => {
      const dataDir = await tempDir();
      await writeFile(
        join(dataDir, 'users.db'),
        [
          JSON.stringify({ $$indexCreated: { fieldName: 'email', unique: false, sparse: false } }),
          JSON.stringify({ $$indexCreated: { fieldName: 'firstname', unique: true, sparse: false } }),
          '',
        ].join('\n'),
      );
      const store = storeAt(dataDir);
      await store.open();
      await store.users.insert(newUser({ email: 'a@example.org', firstname: 'Same' }));
      await store.users.insert(newUser({ email: 'b@example.org', firstname: 'Same' }));
      await expect(store.users.insert(newUser({ email: 'a@example.org' }))).rejects.toBeInstanceOf(UniqueConstraintError);
    });
  });

  describe('ids written by the previous version', () => {
    /** A users.db and sessions.db written by NeDB itself, as Junction did before it assigned ids: 16-character ids. */
    async function folderFromNedb(): Promise<{ dataDir: string; userId: string }> {
      const dataDir = await tempDir();
      const users = Datastore.create({ filename: join(dataDir, 'users.db') });
      const user = await users.insert({ ...newUser({ email: 'old@example.org' }) });
      const sessions = Datastore.create({ filename: join(dataDir, 'sessions.db') });
      await sessions.insert({ tokenHash: 'old-token', userId: user._id, createdAt: new Date(), lastSeenAt: new Date(), expiresAt: new Date(), address: '127.0.0.1' });
      return { dataDir, userId: user._id };
    }

    it('finds, updates and removes records by their old 16-character ids, and references to them still match', async () => {
      const { dataDir, userId } = await folderFromNedb();
      expect(userId).toMatch(/^[A-Za-z0-9]{16}$/);
      const store = storeAt(dataDir);
      await store.open();
      expect((await store.users.findById(userId))?.email).toBe('old@example.org');
      expect((await store.sessions.findOne({ userId }))?.tokenHash).toBe('old-token');
      expect((await store.users.updateById(userId, { set: { firstname: 'Renamed' } }))?._id).toBe(userId);
      await store.close();
      await store.open();
      expect((await store.users.findById(userId))?.firstname).toBe('Renamed');
      const added = await store.users.insert(newUser({ email: 'new@example.org' }));
      expect(added._id).toMatch(/^[0-9a-f]{24}$/);
      expect(await store.users.removeById(userId)).toBe(true);
      expect(await store.users.findById(userId)).toBeNull();
      expect((await store.users.find({})).map((u) => u.email)).toEqual(['new@example.org']);
    });
  });

  describe('damaged or unreadable files', () => {
    it('refuses a file with a line that is not JSON appended, and leaves it byte for byte', async () => {
      const { dataDir, file } = await folderWithUsers();
      await appendFile(file, '{not json\n');
      await expectOpenRefused(dataDir, file, /line 5 is not valid JSON/);
    });

    it('refuses a file with one damaged line in the middle', async () => {
      const { dataDir, file } = await folderWithUsers();
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines[1] = lines[1]!.slice(0, 20);
      await writeFile(file, lines.join('\n'));
      await expectOpenRefused(dataDir, file, /line 2 is not valid JSON/);
    });

    it('refuses invalid UTF-8, which NeDB alone would replace with U+FFFD and write back', async () => {
      const { dataDir, file } = await folderWithUsers();
      const bytes = await readFile(file);
      const at = bytes.indexOf('ben');
      bytes[at] = 0xff;
      await writeFile(file, bytes);
      const line = bytes.subarray(0, at).toString('latin1').split('\n').length;
      await expectOpenRefused(dataDir, file, new RegExp(`line ${line} is not valid UTF-8`));
    });

    it('refuses JSON lines that are not documents, which NeDB alone would silently drop', async () => {
      const { dataDir, file } = await folderWithUsers();
      await appendFile(file, '{"email":"lost-its-id@example.org"}\n');
      await expectOpenRefused(dataDir, file, /line 5 is not a document/);
    });

    it('refuses a line NeDB would split at a raw U+2028', async () => {
      const { dataDir, file } = await folderWithUsers();
      await appendFile(file, `${JSON.stringify({ _id: 'x', email: 'x@example.org', firstname: 'a\u2028b' })}\n`);
      await expectOpenRefused(dataDir, file, /line 5 contains a line-break character/);
    });

    it('refuses a file whose documents break a unique field', async () => {
      const { dataDir, file } = await folderWithUsers();
      await appendFile(file, `${JSON.stringify({ ...newUser({ email: 'ann@example.org' }), _id: 'dup', createdAt: { $$date: 0 }, updatedAt: { $$date: 0 } })}\n`);
      await expectOpenRefused(dataDir, file, /unique/);
    });

    it('checks the crash-recovery copy <file>~ when <file> is missing, and leaves it in place', async () => {
      const { dataDir, file } = await folderWithUsers();
      const backup = `${file}~`;
      await writeFile(backup, `${(await readFile(file, 'utf8'))}{not json\n`);
      await rm(file);
      const before = await readFile(backup);
      const store = storeAt(dataDir);
      const err = await store.open().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreOpenError);
      expect((err as StoreOpenError).file).toBe(backup);
      expect((err as StoreOpenError).message).toContain(backup);
      expect(await readFile(backup)).toEqual(before);
      await expect(stat(file)).rejects.toMatchObject({ code: 'ENOENT' });
    });

    it('reports an unreadable datafile (a directory in its place) by path', async () => {
      const dataDir = await tempDir();
      const file = join(dataDir, 'sessions.db');
      await mkdir(file);
      const store = storeAt(dataDir);
      const err = await store.open().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreOpenError);
      expect((err as StoreOpenError).message).toContain(file);
      expect((err as StoreOpenError).collection).toBe('sessions');
      expect(store.health().state).toBe('failed');
    });

    it('reports a data folder that cannot be created', async () => {
      const parent = await tempDir();
      await writeFile(join(parent, 'file'), '');
      const dataDir = join(parent, 'file', 'data');
      const store = storeAt(dataDir);
      const err = await store.open().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreOpenError);
      expect((err as StoreOpenError).message).toContain(dataDir);
      expect(store.health().state).toBe('failed');
    });

    it('opens once the operator has moved the damaged file aside', async () => {
      const { dataDir, file } = await folderWithUsers();
      await appendFile(file, '{not json\n');
      const store = storeAt(dataDir);
      await expect(store.open()).rejects.toBeInstanceOf(StoreOpenError);
      await rm(file);
      await store.open();
      expect(store.health()).toEqual({ engine: 'nedb', state: 'ready', problems: [] });
      expect(await store.users.count({})).toBe(0);
    });
  });

  describe('compaction and failed writes', () => {
    it('logs a failed compaction with the collection, shows it in health, and clears it after the next success', async () => {
      const dataDir = await tempDir();
      const { logger, lines } = memoryLogger();
      const store = storeAt(dataDir, { logger, compactionIntervalMs: 25 });
      await store.open();
      await store.users.insert(newUser());
      // NeDB compacts by writing <file>~ and renaming it over <file>; a directory there makes that write fail.
      const temp = join(dataDir, 'users.db~');
      await mkdir(temp);

      await vi.waitFor(() => expect(store.health().problems.map((p) => p.collection)).toEqual(['users']), { timeout: 5000 });
      expect(store.health().state).toBe('ready');
      expect(store.health().problems[0]?.message).toContain(join(dataDir, 'users.db'));
      const logged = lines.find((l) => l.level === ERROR && l.collection === 'users');
      expect(logged).toMatchObject({ collection: 'users', file: join(dataDir, 'users.db'), err: { code: 'EISDIR' } });
      expect(lines.filter((l) => l.level === ERROR).every((l) => l.collection === 'users')).toBe(true);

      await rm(temp, { recursive: true });
      await vi.waitFor(() => expect(store.health().problems).toEqual([]), { timeout: 5000 });
      expect(await store.users.count({})).toBe(1);
    });

    it('records a failed write in health, rejects it, and lets the next compaction save it', async () => {
      const dataDir = await tempDir();
      const { logger, lines } = memoryLogger();
      const store = storeAt(dataDir, { logger, compactionIntervalMs: 3_600_000 });
      await store.open();
      const file = join(dataDir, 'users.db');
      // Appending to a directory fails with EISDIR, as a full or vanished disk would.
      await rm(file);
      await mkdir(file);

      const err = await store.users.insert(newUser({ email: 'unsaved@example.org' })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect(err).not.toBeInstanceOf(UniqueConstraintError);
      expect(store.health().problems.map((p) => p.collection)).toEqual(['users']);
      expect(lines.some((l) => l.level === ERROR && l.collection === 'users' && l.file === file)).toBe(true);

      await rm(file, { recursive: true });
      await store.close();
      expect(store.health().problems).toEqual([]);
      expect(await readFile(file, 'utf8')).toContain('unsaved@example.org');
    });

    it('a failed compaction at close is logged, not thrown', async () => {
      const dataDir = await tempDir();
      const { logger, lines } = memoryLogger();
      const store = storeAt(dataDir, { logger });
      await store.open();
      await store.users.insert(newUser());
      await mkdir(join(dataDir, 'users.db~'));
      await expect(store.close()).resolves.toBeUndefined();
      expect(store.health().state).toBe('closed');
      expect(lines.some((l) => l.level === ERROR && l.collection === 'users')).toBe(true);
    });

    it('stops compacting after close', async () => {
      const dataDir = await tempDir();
      const { logger, lines } = memoryLogger();
      const store = storeAt(dataDir, { logger, compactionIntervalMs: 10 });
      await store.open();
      await store.close();
      await mkdir(join(dataDir, 'users.db~'));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(lines.filter((l) => l.level === ERROR)).toEqual([]);
    });
  });
});
