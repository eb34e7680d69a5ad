/**
 * The store the service hands out wraps its channels once: every writer, whichever part it is, keeps live names
 * unique and keeps the pipeline's channel cache fresh (issue 13: a writer given the raw collection left it stale).
 */
import { rm } from 'node:fs/promises';
import { pino } from 'pino';
import { fetch } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withCheckedChannels } from '../../service/storage/checked-channels.js';
import { ChannelNameTakenError } from '../../service/storage/live-channel-names.js';
import { createNedbStore } from '../../service/storage/nedb/index.js';
import type { ChannelRecord } from '../../service/storage/records.js';
import type { Store } from '../../service/storage/store.js';
import { startJunction, tempDir } from '../helpers/junction.js';
import { httpUpstream } from '../helpers/upstream.js';

function channel(name: string, extra: Partial<ChannelRecord> = {}): Omit<ChannelRecord, '_id'> {
  const now = new Date();
  return {
    name, type: 'http', urlPattern: '^/x$', methods: [], status: 'enabled', authType: 'public', allow: [], whitelist: [], matchContentTypes: [],
    requestBody: true, responseBody: true, autoRetryEnabled: false, autoRetryPeriodMinutes: 60, rewriteUrls: false, addAutoRewriteRules: true,
    rewriteUrlsConfig: [], txViewAcl: [], txViewFullAcl: [], txRerunAcl: [], alerts: [], properties: [], routes: [], createdAt: now, updatedAt: now,
    ...extra,
  };
}

describe('withCheckedChannels', () => {
  let engine: Store;
  let store: Store;
  let dir: string;
  let changes: number;
  beforeEach(async () => {
    dir = await tempDir();
    engine = createNedbStore({ dataDir: dir, logger: pino({ level: 'silent' }) });
    changes = 0;
    store = withCheckedChannels(engine, () => changes++);
    await store.open();
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reports each channel write that succeeded, and refuses a live name twice without reporting it', async () => {
    const lab = await store.channels.insert(channel('lab'));
    await store.channels.updateById(lab._id, { set: { description: 'ward 4' } });
    expect(changes).toBe(2);
    await expect(store.channels.insert(channel('lab'))).rejects.toBeInstanceOf(ChannelNameTakenError);
    expect(changes).toBe(2);
    await store.channels.removeMany({});
    expect(changes).toBe(3);
  });

  it("leaves the engine's other collections and its lifecycle as they are", () => {
    for (const name of ['users', 'sessions', 'clients', 'mediators', 'tasks', 'taskTransactions', 'autoRetries'] as const) {
      expect(store[name], name).toBe(engine[name]);
    }
    expect(store.channels).not.toBe(engine.channels);
    expect(store.health()).toEqual(engine.health());
    expect(store.health().state).toBe('ready');
  });
});

describe("the service's store", () => {
  it('routes to a channel written through junction.store at once, as every part of the service writes channels', async () => {
    const upstream = await httpUpstream((_req, res) => res.end('late'));
    const t = await startJunction();
    try {
      // The first request loads the pipeline's channel cache, without the channel.
      expect((await fetch(`${t.httpUrl}/late/x`)).status).toBe(404);
      const route = { name: 'up', type: 'http' as const, host: '127.0.0.1', port: upstream.port, primary: true, secured: false, forwardAuthHeader: false, status: 'enabled' as const, waitPrimaryResponse: false };
      await t.junction.store.channels.insert(channel('late', { urlPattern: '^/late/.*$', routes: [route] }));
      const res = await fetch(`${t.httpUrl}/late/x`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('late');
    } finally {
      await t.destroy();
      await upstream.close();
    }
  });
});
