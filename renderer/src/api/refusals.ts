/** Typed calls for refused requests and messages (`GET /refusals`, issue 35). */
import type { RefusalPage } from '../../../service/contracts/refusals';
import { api } from './client';

export interface RefusalsQuery {
  from?: string;
  to?: string;
  channelID?: string;
  reason?: string;
  address?: string;
  filterLimit: number;
  filterPage: number;
}

export function listRefusals(query: RefusalsQuery, signal?: AbortSignal): Promise<RefusalPage> {
  return api.get<RefusalPage>('/refusals', { ...query }, signal);
}
