/**
 * The dashboard: today's transactions by status (counted once, then kept current from the live feed), the latest
 * transactions as they arrive, and mediator health from heartbeats. Nothing here polls; a reconnect reloads.
 */
import { create } from 'zustand';
import type { LiveTransaction } from '../../../service/contracts/live-feed';
import type { TransactionStatus } from '../../../service/contracts/transactions';
import { listMediators, mediatorUptimes } from '../api/dashboard';
import { ApiError } from '../api/client';
import { countTransactions, listChannelNames, listTransactions } from '../api/transactions';
import type { ChannelName } from '../api/transactions';
import { STATUSES, isStatus, timeFromId } from '../data/status';

export interface FeedItem {
  id: string;
  channelID: string;
  status: string;
  method: string;
  path: string;
  responseStatus?: number;
  /** When the request arrived (ISO). */
  at: string;
}

export interface MediatorHealth {
  urn: string;
  name: string;
  version: string;
  online: boolean;
  /** ISO time of the last heartbeat, when one arrived. */
  lastHeartbeat?: string;
  uptime?: number;
}

export type Counts = Record<TransactionStatus, number>;

/** Most transactions kept in the live feed. */
export const FEED_SIZE = 20;

interface DashboardState {
  /** Start of the counted period (local midnight), ISO. */
  since: string;
  counts: Counts | null;
  countsError: unknown;
  feed: FeedItem[];
  feedError: unknown;
  channels: ChannelName[];
  /** null when the user may not list mediators (admins only). */
  mediators: MediatorHealth[] | null;
  mediatorsError: unknown;
  /** When the server was last asked about mediator uptimes (ms), so silent mediators are checked again later. */
  heartbeatCheckedAt: number;

  loadCounts: () => Promise<void>;
  loadFeed: () => Promise<void>;
  loadChannels: () => Promise<void>;
  loadMediators: () => Promise<void>;
  /** Asks the server which mediators are still online (after one fell silent). */
  checkHeartbeats: () => Promise<void>;
  started: (event: LiveTransaction) => void;
  completed: (event: LiveTransaction) => void;
  heartbeat: (event: { urn: string; name: string; uptime: number; at: string }) => void;
}

function startOfToday(): Date {
  const now = new Date();
  return new Date(now.getFullYear(), now.getMonth(), now.getDate());
}

function zeroCounts(): Counts {
  return { Processing: 0, Failed: 0, Completed: 0, 'Completed with error(s)': 0, Successful: 0 };
}

/** Status of each transaction seen on the live feed since the counts were loaded, so a completion moves it once. */
let seen = new Map<string, string>();
let countsGeneration = 0;
let channelsReload: Promise<void> | null = null;
let mediatorsReload: Promise<void> | null = null;

function feedItem(event: LiveTransaction): FeedItem {
  return {
    id: event.transactionId,
    channelID: event.channelID,
    status: event.status,
    method: event.method,
    path: event.path,
    ...(event.responseStatus === undefined ? {} : { responseStatus: event.responseStatus }),
    at: (timeFromId(event.transactionId) ?? new Date()).toISOString(),
  };
}

export const useDashboard = create<DashboardState>()((set, get) => {
  /** Adds the transaction to today's counts (or moves it from its previous status). */
  const count = (id: string, status: string) => {
    if (!isStatus(status)) return;
    const at = timeFromId(id);
    if (at !== null && at < new Date(get().since)) return;
    const counts = get().counts;
    if (counts === null) {
      // Still counting: the numbers will include it; a later change of its status moves it.
      seen.set(id, status);
      return;
    }
    const next = { ...counts };
    const before = seen.get(id);
    if (before === status) return;
    if (before !== undefined && isStatus(before)) next[before] = Math.max(0, next[before] - 1);
    // A completion of one that started before the counts were taken: it was counted as Processing then.
    else if (before === undefined && status !== 'Processing') next.Processing = Math.max(0, next.Processing - 1);
    next[status] += 1;
    seen.set(id, status);
    set({ counts: next });
  };

  const knowChannel = (channelID: string) => {
    if (get().channels.some((c) => c._id === channelID) || channelsReload !== null) return;
    channelsReload = get()
      .loadChannels()
      .finally(() => {
        channelsReload = null;
      });
  };

  return {
    since: startOfToday().toISOString(),
    counts: null,
    countsError: null,
    feed: [],
    feedError: null,
    channels: [],
    mediators: null,
    mediatorsError: null,
    heartbeatCheckedAt: 0,

    async loadCounts() {
      const generation = ++countsGeneration;
      const since = startOfToday().toISOString();
      seen = new Map();
      set({ since, counts: null, countsError: null });
      try {
        const values = await Promise.all(STATUSES.map((status) => countTransactions({ status, 'request.timestamp': { $gte: since } })));
        if (generation !== countsGeneration) return;
        const counts = zeroCounts();
        STATUSES.forEach((status, i) => {
          counts[status] = values[i] ?? 0;
        });
        set({ counts });
      } catch (err) {
        if (generation === countsGeneration) set({ countsError: err });
      }
    },

    async loadFeed() {
      try {
        const latest = await listTransactions({}, 0, FEED_SIZE);
        const loaded: FeedItem[] = latest.map((tx) => ({
          id: tx._id,
          channelID: tx.channelID,
          status: tx.status,
          method: tx.request.method,
          path: tx.request.path,
          ...(tx.response === undefined ? {} : { responseStatus: tx.response.status }),
          at: tx.request.timestamp,
        }));
        // Keep what the feed pushed meanwhile and the page did not include yet: it arrived after the page was read.
        const ids = new Set(loaded.map((item) => item.id));
        // Pushed times come from the id, to the second only.
        const newest = (loaded[0]?.at ?? '').slice(0, 19);
        const pushed = get().feed.filter((item) => !ids.has(item.id) && item.at.slice(0, 19) >= newest);
        const feed = [...pushed, ...loaded].slice(0, FEED_SIZE);
        set({ feed, feedError: null });
      } catch (err) {
        set({ feedError: err });
      }
    },

    async loadChannels() {
      try {
        set({ channels: await listChannelNames() });
      } catch {
        // Names are a nicety here: the feed shows channel ids instead.
      }
    },

    async loadMediators() {
      try {
        const [mediators, uptimes] = await Promise.all([listMediators(), mediatorUptimes()]);
        set({
          mediatorsError: null,
          heartbeatCheckedAt: Date.now(),
          mediators: mediators.map((m) => {
            const uptime = uptimes[m.urn];
            return {
              urn: m.urn,
              name: m.name,
              version: m.version,
              online: uptime === undefined ? m.online : uptime !== null,
              ...(m._lastHeartbeat === undefined ? {} : { lastHeartbeat: m._lastHeartbeat }),
              ...(typeof uptime === 'number' ? { uptime } : m._uptime === undefined ? {} : { uptime: m._uptime }),
            };
          }),
        });
      } catch (err) {
        // Only admins may list mediators; for others the section is left out.
        if (err instanceof ApiError && err.status === 403) set({ mediators: null, mediatorsError: null });
        else set({ mediatorsError: err });
      }
    },

    async checkHeartbeats() {
      try {
        const uptimes = await mediatorUptimes();
        const mediators = get().mediators;
        set({
          heartbeatCheckedAt: Date.now(),
          ...(mediators === null ? {} : { mediators: mediators.map((m) => (uptimes[m.urn] === null ? { ...m, online: false } : m)) }),
        });
      } catch (err) {
        set({ mediatorsError: err, heartbeatCheckedAt: Date.now() });
      }
    },

    started(event) {
      knowChannel(event.channelID);
      const item = feedItem(event);
      set({ feed: [item, ...get().feed.filter((f) => f.id !== item.id)].slice(0, FEED_SIZE) });
      count(event.transactionId, event.status);
    },

    completed(event) {
      knowChannel(event.channelID);
      const feed = get().feed;
      const known = feed.some((f) => f.id === event.transactionId);
      const item = feedItem(event);
      set({
        feed: known ? feed.map((f) => (f.id === item.id ? { ...f, status: item.status, ...(item.responseStatus === undefined ? {} : { responseStatus: item.responseStatus }) } : f)) : [item, ...feed].slice(0, FEED_SIZE),
      });
      count(event.transactionId, event.status);
    },

    heartbeat(event) {
      const mediators = get().mediators;
      if (mediators === null) return;
      if (!mediators.some((m) => m.urn === event.urn)) {
        if (mediatorsReload === null) {
          mediatorsReload = get()
            .loadMediators()
            .finally(() => {
              mediatorsReload = null;
            });
        }
        return;
      }
      set({ mediators: mediators.map((m) => (m.urn === event.urn ? { ...m, online: true, lastHeartbeat: event.at, uptime: event.uptime } : m)) });
    },
  };
});
