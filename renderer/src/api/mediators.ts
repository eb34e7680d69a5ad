/** Typed calls of the mediators routes (admins only). */
import type { HeartbeatAnswer } from '../../../service/contracts/api';
import type { InstalledChannel, MediatorConfig, PublicMediator } from '../../../service/contracts/mediators';
import { api, seg } from './client';

export function listMediators(signal?: AbortSignal): Promise<PublicMediator[]> {
  return api.get<PublicMediator[]>('/mediators', undefined, signal);
}

/** Uptime per urn (null while offline), as `GET /heartbeat` reports it. */
export function heartbeats(signal?: AbortSignal): Promise<HeartbeatAnswer> {
  return api.get<HeartbeatAnswer>('/heartbeat', undefined, signal);
}

export function getMediator(urn: string, signal?: AbortSignal): Promise<PublicMediator> {
  return api.get<PublicMediator>(`/mediators/${seg(urn)}`, undefined, signal);
}

export function deleteMediator(urn: string): Promise<{ message: string }> {
  return api.delete<{ message: string }>(`/mediators/${seg(urn)}`);
}

/** Replaces the configuration; masked passwords sent back unchanged keep their stored value. */
export function saveMediatorConfig(urn: string, config: MediatorConfig): Promise<PublicMediator> {
  return api.put<PublicMediator>(`/mediators/${seg(urn)}/config`, config);
}

/** Installs the named default channels; an empty list installs them all. */
export function installMediatorChannels(urn: string, names: string[]): Promise<InstalledChannel[]> {
  return api.post<InstalledChannel[]>(`/mediators/${seg(urn)}/channels`, names);
}
