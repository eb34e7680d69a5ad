/** Typed calls for the Logs page: Junction's own log lines. */
import type { LogEntry, LogLevelName } from '../../../service/contracts/logs';
import { api } from './client';

export interface LogsQuery {
  /** Epoch ms or ISO 8601. */
  from: number;
  until?: number;
  level: LogLevelName;
  start?: number;
  limit: number;
  /** `newest` first (the console's order) or `oldest` first (the API's default, as OpenHIM). */
  order?: 'newest' | 'oldest';
  /** Only lines whose message or details contain this text, in any case. */
  search?: string;
}

export function getLogs(query: LogsQuery, signal?: AbortSignal): Promise<LogEntry[]> {
  return api.get<LogEntry[]>('/logs', { ...query, search: query.search === '' ? undefined : query.search }, signal);
}
