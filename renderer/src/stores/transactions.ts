/**
 * The transactions area: the page shown (one server page at a time, with the count of all matches), the selection,
 * one transaction's detail, channel and client names, and the streamed export with its progress.
 */
import { create } from 'zustand';
import type { CreatedTask, TransactionFilters, TransactionView } from '../../../service/contracts/transactions';
import {
  countMatching,
  countTransactions,
  getTransaction,
  listChannelNames,
  listClientNames,
  listTransactions,
  rerunMatching,
  rerunTransactions,
  startExport,
} from '../api/transactions';
import type { ChannelName, ClientName, ExportFormat } from '../api/transactions';
import type { LiveTransaction } from '../../../service/contracts/live-feed';
import { mergeLoaded, withCompleted, withStarted } from '../data/live-list';

export interface ExportState {
  status: 'idle' | 'running' | 'done' | 'cancelled' | 'failed';
  format: ExportFormat;
  /** Rows received so far (lines of the stream, without the CSV header). */
  rows: number;
  bytes: number;
  /** How many rows were expected, from a count with the same filters. */
  total: number;
  fileName: string;
  /** Object URL of the finished file, revoked when the next export starts or the page is left. */
  url: string | null;
  error: unknown;
}

interface TransactionsState {
  channels: ChannelName[];
  clients: ClientName[];
  namesError: unknown;

  /** The page on screen, for the query it was loaded for. */
  rows: TransactionView[];
  rowsKey: string | null;
  loading: boolean;
  listError: unknown;
  /** Matches of the current filters (for paging and bulk re-run), null while unknown. */
  total: number | null;
  /** The total is a floor: a text search matched more and counting stopped there ("more than 10,000"). */
  estimated: boolean;
  totalKey: string | null;
  /** Ids of the selected rows (kept across pages, cleared when the filters change). */
  selected: Record<string, boolean>;

  detail: TransactionView | null;
  detailLoading: boolean;
  detailError: unknown;

  exporting: ExportState;
  /** The list's URL search of the last visit, so the detail can lead back to the same filtered view. */
  listSearch: string;
  /** The user paused the live list (kept while they look at a transaction and come back). */
  livePaused: boolean;

  setListSearch: (search: string) => void;
  loadNames: (withClients: boolean) => Promise<void>;
  /**
   * Loads one page (page from 0) and counts the matches again. Stale answers are dropped. The count shown meanwhile
   * is the last one of the same filters (none when they changed).
   */
  loadPage: (filters: TransactionFilters, page: number, size: number) => Promise<void>;
  /** Counts the matches of the filters on screen again (the export dialog opening), keeping the last count meanwhile. */
  recount: (filters: TransactionFilters) => void;
  setSelected: (selected: Record<string, boolean>) => void;
  setLivePaused: (paused: boolean) => void;
  /** A transaction started while the unfiltered first page of `size` rows follows the live feed. */
  liveStarted: (event: LiveTransaction, size: number) => void;
  liveCompleted: (event: LiveTransaction, size: number) => void;
  /** Reads the unfiltered first page and the count again without a loading state, keeping rows pushed meanwhile. */
  reloadLive: (size: number) => Promise<void>;
  loadDetail: (id: string) => Promise<void>;
  rerun: (ids: string[]) => Promise<CreatedTask>;
  /** A bulk re-run; with `latestAttemptOnly`, only the latest attempt of each message. */
  rerunFiltered: (filters: TransactionFilters, latestAttemptOnly: boolean) => Promise<CreatedTask>;
  startExport: (filters: TransactionFilters, format: ExportFormat, bodies: boolean, total: number) => Promise<void>;
  cancelExport: () => void;
  resetExport: () => void;
}

const IDLE_EXPORT: ExportState = { status: 'idle', format: 'csv', rows: 0, bytes: 0, total: 0, fileName: '', url: null, error: null };

let listAbort: AbortController | null = null;
/** The page load under way (or the last one), so a quiet live reload can wait for it. */
let pageLoad: Promise<void> | null = null;
let countAbort: AbortController | null = null;
let detailAbort: AbortController | null = null;
let exportAbort: AbortController | null = null;

function fileNameFrom(response: Response, format: ExportFormat): string {
  const disposition = response.headers.get('content-disposition') ?? '';
  const match = /filename="?([^";]+)"?/i.exec(disposition);
  if (match?.[1] !== undefined) return match[1];
  return `transactions-${new Date().toISOString().replace(/[:.]/g, '-')}.${format}`;
}

/** The rowsKey of the unfiltered first page, the only one that follows the live feed. */
function liveKey(size: number): string {
  return `{}|0|${size}`;
}

function isAbort(err: unknown): boolean {
  return err instanceof DOMException ? err.name === 'AbortError' : (err as Error | null)?.name === 'AbortError';
}

export const useTransactions = create<TransactionsState>()((set, get) => ({
  channels: [],
  clients: [],
  namesError: null,
  rows: [],
  rowsKey: null,
  loading: false,
  listError: null,
  total: null,
  estimated: false,
  totalKey: null,
  selected: {},
  detail: null,
  detailLoading: false,
  detailError: null,
  exporting: IDLE_EXPORT,
  listSearch: '',
  livePaused: false,

  setListSearch(listSearch) {
    set({ listSearch });
  },

  async loadNames(withClients) {
    try {
      const [channels, clients] = await Promise.all([listChannelNames(), withClients ? listClientNames() : Promise.resolve([])]);
      set({ channels, clients, namesError: null });
    } catch (err) {
      set({ namesError: err });
    }
  },

  async loadPage(filters, page, size) {
    const filtersKey = JSON.stringify(filters);
    const key = `${filtersKey}|${page}|${size}`;
    const state = get();
    if (state.totalKey !== filtersKey) set({ selected: {} });
    // Counted with every page read, not only when the filters change: the log changes while the list is looked at
    // (new transactions, re-runs, retention), and a count kept from an earlier visit of the same filters is what
    // showed "1–20 of 12" while 22 matched (issue 36).
    get().recount(filters);
    listAbort?.abort();
    const controller = new AbortController();
    listAbort = controller;
    set({ loading: true, listError: null, ...(state.rowsKey === key ? {} : { rowsKey: key }) });
    const load = (async () => {
      try {
        const rows = await listTransactions(filters, page, size, controller.signal);
        if (listAbort === controller) set({ rows, loading: false });
      } catch (err) {
        if (listAbort !== controller || isAbort(err)) return;
        set({ rows: [], loading: false, listError: err });
      }
    })();
    pageLoad = load;
    await load;
  },

  recount(filters) {
    const filtersKey = JSON.stringify(filters);
    const state = get();
    countAbort?.abort();
    const controller = new AbortController();
    countAbort = controller;
    set({ total: state.totalKey === filtersKey ? state.total : null, totalKey: filtersKey });
    countMatching(filters, controller.signal).then(
      ({ count, estimated }) => {
        if (countAbort === controller) set({ total: count, estimated });
      },
      (err: unknown) => {
        if (countAbort === controller && !isAbort(err)) set({ listError: err });
      },
    );
  },

  setSelected(selected) {
    set({ selected });
  },

  setLivePaused(livePaused) {
    set({ livePaused });
  },

  liveStarted(event, size) {
    const state = get();
    if (state.rowsKey !== liveKey(size)) return;
    const rows = withStarted(state.rows, event, size, new Date());
    if (rows === null) return;
    // Every transaction matches an unfiltered list: the count grows with it until the next count replaces it.
    set({ rows, ...(state.total === null || state.totalKey !== '{}' ? {} : { total: state.total + 1 }) });
  },

  liveCompleted(event, size) {
    const state = get();
    if (state.rowsKey !== liveKey(size)) return;
    const rows = withCompleted(state.rows, event, size, new Date());
    if (rows !== null) set({ rows });
  },

  async reloadLive(size) {
    const key = liveKey(size);
    // A page load under way may have read the list before the events that asked for this: read it again after.
    for (let waited: Promise<void> | null = null; get().loading && pageLoad !== null && pageLoad !== waited; ) {
      waited = pageLoad;
      await waited;
    }
    if (get().rowsKey !== key) return;
    listAbort?.abort();
    const controller = new AbortController();
    listAbort = controller;
    try {
      const [loaded, total] = await Promise.all([listTransactions({}, 0, size, controller.signal), countTransactions({}, controller.signal)]);
      if (listAbort !== controller || get().rowsKey !== key) return;
      set({ rows: mergeLoaded(loaded, get().rows, size), ...(get().totalKey === '{}' ? { total } : {}) });
    } catch (err) {
      // The rows pushed from the feed stay; the next event or a refresh reads the page again.
      if (listAbort === controller && !isAbort(err)) set({ listError: err });
    }
  },

  async loadDetail(id) {
    detailAbort?.abort();
    const controller = new AbortController();
    detailAbort = controller;
    set({ detailLoading: true, detailError: null, ...(get().detail?._id === id ? {} : { detail: null }) });
    try {
      const detail = await getTransaction(id, controller.signal);
      if (detailAbort === controller) set({ detail, detailLoading: false });
    } catch (err) {
      if (detailAbort !== controller || isAbort(err)) return;
      set({ detailLoading: false, detailError: err });
    }
  },

  rerun: (ids) => rerunTransactions(ids),
  rerunFiltered: (filters, latestAttemptOnly) => rerunMatching(filters, latestAttemptOnly),

  async startExport(filters, format, bodies, total) {
    get().resetExport();
    const controller = new AbortController();
    exportAbort = controller;
    set({ exporting: { ...IDLE_EXPORT, status: 'running', format, total } });
    const update = (patch: Partial<ExportState>) => {
      if (exportAbort === controller) set({ exporting: { ...get().exporting, ...patch } });
    };
    try {
      const response = await startExport(filters, format, bodies, controller.signal);
      const fileName = fileNameFrom(response, format);
      update({ fileName });
      const reader = response.body?.getReader();
      if (reader === undefined) throw new Error('The export answer has no body to read');
      const chunks: Uint8Array[] = [];
      let bytes = 0;
      let lines = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        bytes += value.byteLength;
        // Every row ends with a newline (CSV quotes the few cells that may hold one; paths and ids cannot).
        for (const byte of value) if (byte === 10) lines++;
        const rows = format === 'csv' ? Math.max(0, lines - 1) : lines;
        update({ rows, bytes });
      }
      const type = format === 'csv' ? 'text/csv' : 'application/x-ndjson';
      const url = URL.createObjectURL(new Blob(chunks as BlobPart[], { type }));
      if (exportAbort !== controller) {
        URL.revokeObjectURL(url);
        return;
      }
      const rows = format === 'csv' ? Math.max(0, lines - 1) : lines;
      update({ status: 'done', url, rows, bytes, total: Math.max(total, rows) });
    } catch (err) {
      if (isAbort(err)) update({ status: 'cancelled' });
      else update({ status: 'failed', error: err });
    }
  },

  cancelExport() {
    exportAbort?.abort();
  },

  resetExport() {
    exportAbort?.abort();
    exportAbort = null;
    const { url } = get().exporting;
    if (url !== null) URL.revokeObjectURL(url);
    set({ exporting: IDLE_EXPORT });
  },
}));
