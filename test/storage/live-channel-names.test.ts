import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ChannelNameTakenError, uniqueLiveChannelNames } from '../../service/storage/live-channel-names.js';
import { createNedbStore } from '../../service/storage/nedb/index.js';
import type { ChannelRecord } from '../../service/storage/records.js';
import type { Collection, Store } from '../../service/storage/store.js';
import { tempDir } from '../helpers/junction.js';

function channel(name: string, status: ChannelRecord['status'] = 'enabled'): Omit<ChannelRecord, '_id'> {
  const now = new Date();
  return {
    name, type: 'http', urlPattern: '^/x$', methods: [], status, authType: 'public', allow: [], whitelist: [], matchContentTypes: [],
    requestBody: true, responseBody: true, autoRetryEnabled: false, autoRetryPeriodMinutes: 60, rewriteUrls: false, addAutoRewriteRules: true,
    rewriteUrlsConfig: [], txViewAcl: [], txViewFullAcl: [], txRerunAcl: [], alerts: [], properties: [], routes: [], createdAt: now, updatedAt: now,
  };
}

describe('channel names unique among live channels', () => {
  let store: Store;
  let dir: string;
  let channels: Collection<ChannelRecord>;
  beforeEach(async () => {
    dir = await tempDir();
    store = createNedbStore({ dataDir: dir, logger: pino({ level: 'silent' }) });
    await store.open();
    channels = uniqueLiveChannelNames(store.channels);
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lets one of two simultaneous inserts take a free name and refuses the other, naming the holder', async () => {
    const [first, second] = await Promise.allSettled([channels.insert(channel('lab')), channels.insert(channel('lab'))]);
    expect(first.status).toBe('fulfilled');
    expect(second.status).toBe('rejected');
    const holder = first.status === 'fulfilled' ? first.value : null;
    const reason = second.status === 'rejected' ? (second.reason as unknown) : null;
    expect(reason).toBeInstanceOf(ChannelNameTakenError);
    expect((reason as ChannelNameTakenError).holder).toEqual({ _id: holder?._id, name: 'lab' });
    expect((reason as ChannelNameTakenError).field).toBe('name');
    expect(await store.channels.count({ name: 'lab' })).toBe(1);
  });

  it('does not count deleted channels, on insert, rename or restore', async () => {
    const old = await channels.insert(channel('lab', 'deleted'));
    const live = await channels.insert(channel('lab'));
    // An edit that leaves the name and status alone is not checked.
    expect(await channels.updateById(old._id, { set: { description: 'kept' } })).toMatchObject({ status: 'deleted' });
    await expect(channels.updateById(old._id, { set: { status: 'enabled' } })).rejects.toMatchObject({ holder: { _id: live._id } });
    await expect(channels.updateById(old._id, { unset: ['status'] })).rejects.toBeInstanceOf(ChannelNameTakenError);
    expect(await channels.updateById(old._id, { set: { status: 'disabled', name: 'lab (old)' } })).toMatchObject({ name: 'lab (old)', status: 'disabled' });
    const other = await channels.insert(channel('radiology'));
    await expect(channels.updateById(other._id, { set: { name: 'lab' } })).rejects.toBeInstanceOf(ChannelNameTakenError);
    // Two channels brought back at once under one name clash with each other.
    const a = await channels.insert(channel('pharmacy', 'deleted'));
    const b = await channels.insert(channel('pharmacy', 'deleted'));
    await expect(channels.updateMany({ _id: { $in: [a._id, b._id] } }, { set: { status: 'enabled' } })).rejects.toBeInstanceOf(ChannelNameTakenError);
    expect(await channels.count({ name: 'pharmacy', status: 'deleted' })).toBe(2);
    expect(await channels.updateMany({ _id: a._id }, { set: { status: 'enabled' } })).toBe(1);
  });

  it('drops the unique name index an older version left in the data file, so a deleted channel frees its name there too', async () => {
    const older = await tempDir();
    const lines = [
      JSON.stringify({ $$indexCreated: { fieldName: 'name', unique: true, sparse: true } }),
      JSON.stringify({ _id: 'old-lab', ...channel('lab', 'deleted'), createdAt: { $$date: 0 }, updatedAt: { $$date: 0 } }),
      '',
    ];
    await writeFile(join(older, 'channels.db'), lines.join('\n'), { mode: 0o600 });
    const upgraded = createNedbStore({ dataDir: older, logger: pino({ level: 'silent' }) });
    try {
      await upgraded.open();
      await uniqueLiveChannelNames(upgraded.channels).insert(channel('lab'));
      expect((await upgraded.channels.find({ name: 'lab' })).map((c) => c.status).sort()).toEqual(['deleted', 'enabled']);
    } finally {
      await upgraded.close();
      await rm(older, { recursive: true, force: true });
    }
  });
});
