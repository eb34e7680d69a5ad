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
}

export function getLogs(query: LogsQuery, signal?: AbortSignal): Promise<LogEntry[]> {
  return api.get<LogEntry[]>('/logs', { ...query }, signal);
}
