/** Typed calls of the dashboard: registered mediators and their heartbeat uptimes. */
import type { HeartbeatAnswer } from '../../../service/contracts/api';
import { api } from './client';

/** A mediator as far as the dashboard needs it (GET /mediators answers much more; admins only). */
export interface MediatorSummary {
  urn: string;
  name: string;
  version: string;
  online: boolean;
  _lastHeartbeat?: string;
  _uptime?: number;
}

export async function listMediators(signal?: AbortSignal): Promise<MediatorSummary[]> {
  const mediators = await api.get<MediatorSummary[]>('/mediators', undefined, signal);
  return mediators.map(({ urn, name, version, online, _lastHeartbeat, _uptime }) => ({
    urn,
    name,
    version,
    online,
    ...(_lastHeartbeat === undefined ? {} : { _lastHeartbeat }),
    ...(_uptime === undefined ? {} : { _uptime }),
  }));
}

/** Mediator uptimes by urn; null for one that is offline. */
export async function mediatorUptimes(signal?: AbortSignal): Promise<Record<string, number | null>> {
  const answer = await api.get<HeartbeatAnswer>('/heartbeat', undefined, signal);
  return answer.mediators;
}
