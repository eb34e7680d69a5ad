/** The Refused area (issue 35): the page of refusals shown, and the channels its filter offers. */
import { create } from 'zustand';
import type { Refusal } from '../../../service/contracts/refusals';
import { listChannels } from '../api/channels';
import { listRefusals } from '../api/refusals';
import type { RefusalsQuery } from '../api/refusals';

interface RefusalsState {
  rows: Refusal[];
  /** Rows matching the filters, and the refusals they count. */
  total: number;
  refused: number;
  loading: boolean;
  error: unknown;
  channels: { value: string; label: string }[];
  load: (query: RefusalsQuery) => Promise<void>;
  loadChannels: () => Promise<void>;
}

let abort: AbortController | null = null;

function isAbort(err: unknown): boolean {
  return (err as Error | null)?.name === 'AbortError';
}

export const useRefusals = create<RefusalsState>((set) => ({
  rows: [],
  total: 0,
  refused: 0,
  loading: false,
  error: null,
  channels: [],
  async load(query) {
    abort?.abort();
    const mine = new AbortController();
    abort = mine;
    set({ loading: true, error: null });
    try {
      const page = await listRefusals(query, mine.signal);
      if (abort === mine) set({ rows: page.items, total: page.total, refused: page.refused, loading: false });
    } catch (err) {
      if (!isAbort(err) && abort === mine) set({ error: err, loading: false });
    }
  },
  async loadChannels() {
    try {
      const channels = await listChannels();
      set({ channels: channels.map((c) => ({ value: c._id, label: c.name })).sort((a, b) => a.label.localeCompare(b.label)) });
    } catch {
      // The filter then offers no names; the list still works, and its own errors are shown.
    }
  },
}));
