import { rm } from 'node:fs/promises';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChannelCache } from '../../service/pipeline/channel-cache.js';
import { observeCollection } from '../../service/storage/observe.js';
import { createNedbStore } from '../../service/storage/nedb/index.js';
import type { ChannelRecord } from '../../service/storage/records.js';
import type { Store } from '../../service/storage/store.js';
import { tempDir } from '../helpers/junction.js';

let created = Date.UTC(2026, 0, 1);
function channel(name: string, priority: number | undefined, status: ChannelRecord['status'] = 'enabled'): Omit<ChannelRecord, '_id'> {
  const now = new Date((created += 1000));
  return {
    name, type: 'http', urlPattern: '^/.*$', methods: [], priority, status, authType: 'public', allow: [], whitelist: [], matchContentTypes: [],
    requestBody: true, responseBody: true, autoRetryEnabled: false, autoRetryPeriodMinutes: 60, rewriteUrls: false, addAutoRewriteRules: true,
    rewriteUrlsConfig: [], txViewAcl: [], txViewFullAcl: [], txRerunAcl: [], alerts: [], properties: [],
    routes: [{ name: 'r', type: 'http', host: '127.0.0.1', port: 1, primary: true, secured: false, forwardAuthHeader: false, status: 'enabled', waitPrimaryResponse: false }],
    createdAt: now, updatedAt: now,
  };
}

describe('channel cache', () => {
  let store: Store;
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir();
    store = createNedbStore({ dataDir: dir, logger: pino({ level: 'silent' }) });
    await store.open();
  });
  afterAll(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves enabled channels by priority from memory and reloads after every write through the observed collection', async () => {
    const cache = new ChannelCache(store.channels);
    const channels = observeCollection(store.channels, () => cache.invalidate());
    await channels.insert(channel('b', 2));
    await channels.insert(channel('off', 1, 'disabled'));
    expect((await cache.enabled()).map((c) => c.name)).toEqual(['b']);

    // A write that bypasses the observer is not seen: the list really is served from memory.
    await store.channels.insert(channel('hidden', 1));
    expect((await cache.enabled()).map((c) => c.name)).toEqual(['b']);

    const a = await channels.insert(channel('a', 1));
    expect((await cache.enabled()).map((c) => c.name)).toEqual(['hidden', 'a', 'b']);
    await channels.updateById(a._id, { set: { status: 'disabled' } });
    expect((await cache.enabled()).map((c) => c.name)).toEqual(['hidden', 'b']);
    await channels.removeMany({ name: 'hidden' });
    expect((await cache.enabled()).map((c) => c.name)).toEqual(['b']);
  });
});
