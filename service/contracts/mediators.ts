/** Mediators as the management API answers them (OpenHIM field names). Import with `import type`. */

/** The configuration types a mediator can define (SPEC.md "Mediator registration"). */
export type MediatorConfigType = 'string' | 'bigstring' | 'bool' | 'number' | 'option' | 'map' | 'struct' | 'password';

/** One configuration parameter: its type, and for `option` its values, for `struct` the fields (which never nest). */
export interface MediatorConfigDef {
  param: string;
  displayName?: string;
  description?: string;
  type: MediatorConfigType;
  values?: string[];
  template?: MediatorConfigDef[];
  /** The value is a list of the type. */
  array?: boolean;
}

/** Parameter name to value; passwords arrive as the mask, and sending the mask back keeps the stored one. */
export type MediatorConfig = Record<string, unknown>;

/** An endpoint of a mediator, or a route of one of its default channels. */
export interface MediatorRouteView {
  name: string;
  host: string;
  port: number;
  type?: 'http' | 'tcp' | 'mllp';
  path?: string;
  pathTransform?: string;
  primary?: boolean;
  secured?: boolean;
  username?: string;
  /** Always the mask when a password is set. */
  password?: string;
  forwardAuthHeader?: boolean;
  status?: 'enabled' | 'disabled';
}

/** A channel the mediator offers to install, as registered. */
export interface MediatorDefaultChannel {
  name: string;
  description?: string;
  urlPattern?: string;
  routes: MediatorRouteView[];
  [field: string]: unknown;
}

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
  _configModifiedTS?: string;
  updatedBy?: { id: string; name: string };
  createdAt: string;
  updatedAt: string;
}

/** A channel as `POST /mediators/:urn/channels` answers it (the fields the console shows). */
export interface InstalledChannel {
  _id: string;
  name: string;
  urlPattern?: string;
  status?: string;
}
