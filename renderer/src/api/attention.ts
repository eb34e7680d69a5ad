/** Typed call of the needs-attention list (`GET /attention`): admins get every item, other users their channels'. */
import type { AttentionList } from '../../../service/contracts/attention';
import { api } from './client';

export function getAttention(signal?: AbortSignal): Promise<AttentionList> {
  return api.get<AttentionList>('/attention', undefined, signal);
}
