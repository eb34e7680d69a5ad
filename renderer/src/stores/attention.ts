/**
 * What needs attention (`GET /attention`), for the dashboard's strip and the editors' warnings: read on demand and
 * again every `POLL_MS` while a page watches it, since most of its sources (a disk, a certificate's date, a mediator
 * going quiet) announce nothing on the live feed.
 */
import { create } from 'zustand';
import type { AttentionList } from '../../../service/contracts/attention';
import { getAttention } from '../api/attention';

/** How often a watching page reads the list again. */
export const POLL_MS = 15_000;

interface AttentionState {
  list: AttentionList | null;
  error: unknown;
  load: () => Promise<void>;
  /** Loads now and every POLL_MS until the returned function is called. */
  watch: () => () => void;
}

export const useAttention = create<AttentionState>()((set, get) => ({
  list: null,
  error: null,
  async load() {
    try {
      set({ list: await getAttention(), error: null });
    } catch (error) {
      set({ error });
    }
  },
  watch() {
    void get().load();
    const timer = setInterval(() => void get().load(), POLL_MS);
    return () => clearInterval(timer);
  },
}));
