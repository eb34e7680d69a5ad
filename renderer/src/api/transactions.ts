/** Typed calls of the transactions area: the list and its count, one transaction, re-runs, the export, and names. */
import type { BulkRerunAnswer, BulkRerunPreview, CreatedTask, SearchIndexStatus, TransactionCount, TransactionFilters, TransactionView } from '../../../service/contracts/transactions';
import type { ChannelRoute, ChannelType, TcpFraming } from '../../../service/contracts/channels';
import { api, seg } from './client';

/** A channel as far as transaction pages need it (GET /channels answers much more). */
export interface ChannelName {
  _id: string;
  name: string;
  status?: string;
  /** Tells socket transactions (tcp, tls) from HTTP ones, which show a method and path. */
  type?: ChannelType;
  tcpFraming?: TcpFraming;
  /** Each route's type, so an mllp or tcp route's exchange shows its host and port rather than POST /. */
  routes?: Pick<ChannelRoute, 'name' | 'type' | 'secured' | 'primary'>[];
}

/** A client as far as transaction pages need it (GET /clients, admins only). */
export interface ClientName {
  _id: string;
  clientID: string;
  name: string;
}

export type ExportFormat = 'csv' | 'ndjson';

function filtersParam(filters: TransactionFilters): string | undefined {
  return Object.keys(filters).length === 0 ? undefined : JSON.stringify(filters);
}

/** One page of transactions, newest first (`page` from 0). */
export function listTransactions(filters: TransactionFilters, page: number, limit: number, signal?: AbortSignal): Promise<TransactionView[]> {
  return api.get<TransactionView[]>('/transactions', { filterLimit: limit, filterPage: page, filters: filtersParam(filters) }, signal);
}

/** How many transactions match, without loading them. */
export async function countTransactions(filters: TransactionFilters, signal?: AbortSignal): Promise<number> {
  // The answer also lists a page of the matches (as OpenHIM's does); one is enough here.
  const answer = await api.get<TransactionCount>('/transactions', { filterRepresentation: 'bulkrerun', filterLimit: 1, filters: filtersParam(filters) }, signal);
  return answer.count;
}

/** How many match, and whether counting stopped early (a text search matching more than 10,000: "more than"). */
export async function countMatching(filters: TransactionFilters, signal?: AbortSignal): Promise<{ count: number; estimated: boolean }> {
  const answer = await api.get<TransactionCount>('/transactions', { filterRepresentation: 'bulkrerun', filterLimit: 1, filters: filtersParam(filters) }, signal);
  return { count: answer.count, estimated: answer.estimated === true };
}

/** The search index and its backfill (admins only). */
export function getSearchIndexStatus(signal?: AbortSignal): Promise<SearchIndexStatus> {
  return api.get<SearchIndexStatus>('/transactions/search-index', undefined, signal);
}

/** One transaction with headers, bodies (up to 1 MB each), routes and orchestrations. */
export function getTransaction(id: string, signal?: AbortSignal): Promise<TransactionView> {
  return api.get<TransactionView>(`/transactions/${seg(id)}`, { filterRepresentation: 'full' }, signal);
}

/** Re-runs the given transactions as one task. */
export function rerunTransactions(ids: string[]): Promise<CreatedTask> {
  return api.post<CreatedTask>('/tasks', { tids: ids });
}

/**
 * Re-runs every transaction matching the filters as one task (the answer is the task, with OpenHIM's success message);
 * with `latestAttemptOnly`, only the latest attempt of each message.
 */
export function rerunMatching(filters: TransactionFilters, latestAttemptOnly: boolean): Promise<BulkRerunAnswer> {
  return api.post<BulkRerunAnswer>('/bulkrerun', { filters, latestAttemptOnly });
}

/** What a bulk re-run of the filters would do (how many match, were re-run, are re-runs), without starting it. */
export function previewRerun(filters: TransactionFilters): Promise<BulkRerunPreview> {
  return api.post<BulkRerunPreview>('/bulkrerun/preview', { filters });
}

/** A transaction's summary without bodies (its status and response status), as a re-run's outcome shows it. */
export function getTransactionSummary(id: string, signal?: AbortSignal): Promise<TransactionView> {
  return api.get<TransactionView>(`/transactions/${seg(id)}`, { filterRepresentation: 'simple' }, signal);
}

/** Starts the streamed export; the caller reads the body. */
export function startExport(filters: TransactionFilters, format: ExportFormat, bodies: boolean, signal: AbortSignal): Promise<Response> {
  return api.fetch('/transactions/export', {
    query: { format, filters: filtersParam(filters), bodies: bodies ? 'true' : undefined },
    signal,
  });
}

export async function listChannelNames(signal?: AbortSignal): Promise<ChannelName[]> {
  const channels = await api.get<ChannelName[]>('/channels', undefined, signal);
  return channels.map(({ _id, name, status, type, tcpFraming, routes }) => ({
    _id,
    name,
    ...(status === undefined ? {} : { status }),
    ...(type === undefined ? {} : { type }),
    ...(tcpFraming === undefined ? {} : { tcpFraming }),
    ...(routes === undefined ? {} : { routes: routes.map((r) => ({ name: r.name, type: r.type, secured: r.secured, primary: r.primary })) }),
  }));
}

export async function listClientNames(signal?: AbortSignal): Promise<ClientName[]> {
  const clients = await api.get<ClientName[]>('/clients', undefined, signal);
  return clients.map(({ _id, clientID, name }) => ({ _id, clientID, name }));
}
