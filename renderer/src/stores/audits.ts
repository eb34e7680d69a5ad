/**
 * The audit log area: the page shown (one server page at a time; the API gives no count, so a full page means there
 * may be another), the filter lists, one audit's detail, and the streamed export.
 */
import { create } from 'zustand';
import type { Audit, AuditFilterOptions } from '../../../service/contracts/audits';
import { getAudit, getAuditFilterOptions, listAudits, startAuditExport } from '../api/audits';
import type { AuditApiFilters } from '../api/audits';

export interface AuditExportState {
  status: 'idle' | 'running' | 'done' | 'cancelled' | 'failed';
  bytes: number;
  fileName: string;
  /** Object URL of the finished file, revoked when the next export starts or the page is left. */
  url: string | null;
  error: unknown;
}

interface AuditsState {
  rows: Audit[];
  /** The filters and page the rows were loaded for. */
  rowsKey: string | null;
  /** The page was full, so a next one may hold more. */
  mayHaveMore: boolean;
  loading: boolean;
  listError: unknown;

  options: AuditFilterOptions | null;
  optionsError: unknown;

  detail: Audit | null;
  detailLoading: boolean;
  detailError: unknown;

  exporting: AuditExportState;
  /** The list's URL search of the last visit, so the detail can lead back to the same filtered view. */
  listSearch: string;

  setListSearch: (search: string) => void;
  loadOptions: () => Promise<void>;
  /** Loads one page (page from 0); stale answers are dropped. */
  loadPage: (filters: AuditApiFilters, page: number, size: number, force?: boolean) => Promise<void>;
  loadDetail: (id: string) => Promise<void>;
  startExport: (filters: AuditApiFilters) => Promise<void>;
  cancelExport: () => void;
  resetExport: () => void;
}

const IDLE_EXPORT: AuditExportState = { status: 'idle', bytes: 0, fileName: '', url: null, error: null };

let listAbort: AbortController | null = null;
let detailAbort: AbortController | null = null;
let exportAbort: AbortController | null = null;

function isAbort(err: unknown): boolean {
  return err instanceof DOMException ? err.name === 'AbortError' : (err as Error | null)?.name === 'AbortError';
}

function fileNameFrom(response: Response): string {
  const disposition = response.headers.get('content-disposition') ?? '';
  const match = /filename="?([^";]+)"?/i.exec(disposition);
  if (match?.[1] !== undefined) return match[1];
  return `audits-${new Date().toISOString().replace(/[:.]/g, '-')}.json`;
}

export const useAudits = create<AuditsState>()((set, get) => ({
  rows: [],
  rowsKey: null,
  mayHaveMore: false,
  loading: false,
  listError: null,
  options: null,
  optionsError: null,
  detail: null,
  detailLoading: false,
  detailError: null,
  exporting: IDLE_EXPORT,
  listSearch: '',

  setListSearch(listSearch) {
    set({ listSearch });
  },

  async loadOptions() {
    try {
      set({ options: await getAuditFilterOptions(), optionsError: null });
    } catch (err) {
      set({ optionsError: err });
    }
  },

  async loadPage(filters, page, size, force = false) {
    const key = `${JSON.stringify(filters)}|${page}|${size}`;
    if (!force && get().rowsKey === key && get().listError === null) return;
    listAbort?.abort();
    const controller = new AbortController();
    listAbort = controller;
    // Rows of another query are not shown while this one loads: they would not match its filters.
    set((s) => ({ loading: true, listError: null, ...(s.rowsKey === key ? {} : { rows: [], mayHaveMore: false }) }));
    try {
      const rows = await listAudits(filters, page, size, controller.signal);
      if (listAbort !== controller) return;
      set({ rows, rowsKey: key, mayHaveMore: rows.length >= size, loading: false });
    } catch (err) {
      if (listAbort !== controller || isAbort(err)) return;
      set({ listError: err, loading: false, rowsKey: null });
    }
  },

  async loadDetail(id) {
    detailAbort?.abort();
    const controller = new AbortController();
    detailAbort = controller;
    set((s) => ({ detailLoading: true, detailError: null, detail: s.detail?._id === id ? s.detail : null }));
    try {
      const detail = await getAudit(id, controller.signal);
      if (detailAbort !== controller) return;
      set({ detail, detailLoading: false });
    } catch (err) {
      if (detailAbort !== controller || isAbort(err)) return;
      set({ detailError: err, detailLoading: false });
    }
  },

  async startExport(filters) {
    get().resetExport();
    const controller = new AbortController();
    exportAbort = controller;
    set({ exporting: { ...IDLE_EXPORT, status: 'running' } });
    try {
      const response = await startAuditExport(filters, controller.signal);
      const fileName = fileNameFrom(response);
      const chunks: Uint8Array<ArrayBuffer>[] = [];
      let bytes = 0;
      const reader = response.body?.getReader();
      if (reader !== undefined) {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          chunks.push(value);
          bytes += value.byteLength;
          if (exportAbort === controller) set({ exporting: { ...get().exporting, bytes } });
        }
      }
      if (exportAbort !== controller) return;
      const url = URL.createObjectURL(new Blob(chunks, { type: response.headers.get('content-type') ?? 'application/json' }));
      set({ exporting: { status: 'done', bytes, fileName, url, error: null } });
    } catch (err) {
      if (exportAbort !== controller) return;
      set({ exporting: { ...get().exporting, status: isAbort(err) ? 'cancelled' : 'failed', error: isAbort(err) ? null : err } });
    } finally {
      if (exportAbort === controller) exportAbort = null;
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
