/** Typed calls of the channels routes, plus the look-ups the channel editor offers as suggestions. */
import type { PublicUser } from '../../../service/contracts/api';
import type {
  Channel,
  ChannelCreate,
  ChannelDeleteAnswer,
  ChannelStatusAnswer,
  ChannelTriggerAnswer,
  ChannelUpdate,
  RouteCheckAnswer,
  RoutePasswordMask,
  TestMessageAnswer,
  TestMessageBody,
} from '../../../service/contracts/channels';
import { api, seg } from './client';

/** What the API shows instead of a stored route password; sent back, it keeps that password. */
export const ROUTE_PASSWORD_MASK: RoutePasswordMask = '********';

export function listChannels(options: { includeDeleted?: boolean } = {}, signal?: AbortSignal): Promise<Channel[]> {
  return api.get<Channel[]>('/channels', { includeDeleted: options.includeDeleted === true ? true : undefined }, signal);
}

export function getChannel(id: string, signal?: AbortSignal): Promise<Channel> {
  return api.get<Channel>(`/channels/${seg(id)}`, undefined, signal);
}

export function createChannel(body: ChannelCreate): Promise<Channel> {
  return api.post<Channel>('/channels', body);
}

export function updateChannel(id: string, body: ChannelUpdate): Promise<Channel> {
  return api.put<Channel>(`/channels/${seg(id)}`, body);
}

export function setChannelStatus(id: string, status: 'enabled' | 'disabled'): Promise<Channel> {
  return updateChannel(id, { status });
}

/**
 * Brings back a channel kept as deleted: as in OpenHIM, a PUT that sets its status. A new name, sent in the same
 * request, gets past a live channel that took the old one meanwhile.
 */
export function restoreChannel(id: string, status: 'enabled' | 'disabled', name?: string): Promise<Channel> {
  return updateChannel(id, name === undefined ? { status } : { status, name });
}

export function deleteChannel(id: string): Promise<ChannelDeleteAnswer> {
  return api.delete<ChannelDeleteAnswer>(`/channels/${seg(id)}`);
}

export function triggerChannel(id: string): Promise<ChannelTriggerAnswer> {
  return api.post<ChannelTriggerAnswer>(`/channels/${seg(id)}/trigger`);
}

/** Every visible channel's "is it working?" row in one call: today's counts, last message, listener, address. */
export function getChannelStatus(options: { includeDeleted?: boolean } = {}, signal?: AbortSignal): Promise<ChannelStatusAnswer> {
  return api.get<ChannelStatusAnswer>('/channels/status', { includeDeleted: options.includeDeleted === true ? true : undefined }, signal);
}

/** Connects to each route of a channel (and shakes hands over TLS) without sending anything. */
export function checkRoutes(id: string): Promise<RouteCheckAnswer> {
  return api.post<RouteCheckAnswer>(`/channels/${seg(id)}/check-routes`);
}

/** Sends exactly `body` through a channel as a transaction marked as a test. */
export function sendTestMessage(id: string, body: TestMessageBody): Promise<TestMessageAnswer> {
  return api.post<TestMessageAnswer>(`/channels/${seg(id)}/test-message`, body);
}

/** The parts of a client the editor needs to suggest it in "Allowed clients". */
export interface ClientChoice {
  clientID: string;
  name: string;
  roles: string[];
}

export function listClientChoices(signal?: AbortSignal): Promise<ClientChoice[]> {
  return api.get<ClientChoice[]>('/clients', undefined, signal);
}

/** Names of the roles in use (a view over channels and clients). */
export async function listRoleNames(signal?: AbortSignal): Promise<string[]> {
  const roles = await api.get<{ name: string }[]>('/roles', undefined, signal);
  return roles.map((r) => r.name);
}

export type UserChoice = Pick<PublicUser, 'email' | 'firstname' | 'surname' | 'groups' | 'msisdn'>;

export function listUserChoices(signal?: AbortSignal): Promise<UserChoice[]> {
  return api.get<UserChoice[]>('/users', undefined, signal);
}
