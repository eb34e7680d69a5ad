/**
 * The NeDB copy a backup takes: written in NeDB's own format, it loads back through the store with its dates, line
 * separators inside strings and unique indexes intact.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createNedbStore } from '../../service/storage/nedb/index.js';
import { UniqueConstraintError } from '../../service/storage/store.js';
import { memoryLogger } from '../helpers/logger.js';

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

describe('the NeDB snapshot', () => {
  it('loads back as the store it was taken from', async () => {
    const from = await mkdtemp(join(tmpdir(), 'junction-nedb-from-'));
    const to = await mkdtemp(join(tmpdir(), 'junction-nedb-to-'));
    dirs.push(from, to);
    const { logger } = memoryLogger();
    const store = createNedbStore({ dataDir: from, logger });
    await store.open();
    const expiresAt = new Date('2026-11-24T10:00:00.123Z');
    await store.sessions.insert({ userId: 'u1', tokenHash: 'h1', createdAt: expiresAt, expiresAt, lastSeenAt: expiresAt, address: '127.0.0.1' });
    await store.contactGroups.insert({ group: 'on call\u2028night', users: [] });
    const files = await store.snapshot(to);
    expect(files).toContain('sessions.db');
    await store.close();

    const copy = createNedbStore({ dataDir: to, logger });
    await copy.open();
    const session = await copy.sessions.findOne({ tokenHash: 'h1' });
    expect(session?.expiresAt).toEqual(expiresAt);
    expect((await copy.contactGroups.findOne({}))?.group).toBe('on call\u2028night');
    await expect(copy.sessions.insert({ userId: 'u2', tokenHash: 'h1', createdAt: expiresAt, expiresAt, lastSeenAt: expiresAt, address: '127.0.0.1' })).rejects.toBeInstanceOf(UniqueConstraintError);
    await copy.close();
  });
});
