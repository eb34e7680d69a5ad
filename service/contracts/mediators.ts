/** Mediators as the management API answers them (OpenHIM field names). Import with `import type`. */
import type { Channel, ChannelCreate, ChannelRouteInput } from './channels.js';
import type { MediatorConfigType } from './vocabulary.js';

export type { MediatorConfigType };

/**
 * One configuration definition of a mediator, as registered, stored and answered: its type, and for `option` its
 * values, for `struct` the fields. The rules (domain/channels/mediator-config.ts) refuse a struct in a template (structs do not
 * nest); the type allows one so that they can say so to callers that skip the request schema.
 */
export interface MediatorConfigDef {
  param: string;
  displayName?: string;
  description?: string;
  type: MediatorConfigType;
  /** The allowed values of an `option`. */
  values?: string[];
  /** The fields of a `struct`. */
  template?: MediatorConfigDef[];
  /** The value is a list of the type. */
  array?: boolean;
}

/** Parameter name to value; passwords arrive as the mask, and sending the mask back keeps the stored one. */
export type MediatorConfig = Record<string, unknown>;

/** An endpoint of a mediator, or a route of one of its default channels: a channel route as sent (defaults apply at install). */
export type MediatorRouteView = ChannelRouteInput;

/** A channel the mediator offers to install, as registered: a channel as `POST /channels` takes it. */
export type MediatorDefaultChannel = ChannelCreate;

export interface PublicMediator {
  _id: string;
  urn: string;
  version: string;
  name: string;
  description?: string;
  endpoints: MediatorRouteView[];
  defaultChannelConfig: MediatorDefaultChannel[];
  configDefs: MediatorConfigDef[];
  config: MediatorConfig;
  /** Default channels installed so far, by default name. */
  installedChannels: { name: string; channelId: string }[];
  /** A heartbeat arrived recently enough (mediators.offlineAfterSeconds). */
  online: boolean;
  /** Seconds the mediator reported in its last heartbeat. */
  _uptime?: number;
  _lastHeartbeat?: string;
  /** When config was last changed through the API: the next heartbeat answers with it. */
  _configModifiedTS?: string;
  updatedBy?: { id: string; name: string };
  createdAt: string;
  updatedAt: string;
}

/** A channel as `POST /mediators/:urn/channels` answers it: the channel installed, as `GET /channels/:id` shows it. */
export type InstalledChannel = Channel;
