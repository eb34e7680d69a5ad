/**
 * Request and response schemas of the mediators routes (OpenHIM field names). Shapes only: the semver version, the
 * configDefs rules, config values against configDefs and the default channels' rules are checked in
 * domain/mediator-*.ts, so every problem still names its field.
 */
import { Type } from 'typebox';
import type { Static } from 'typebox';
import { CONFIG_TYPES } from '../../domain/channels/mediator-config.js';
import { ChannelCreateBody, RouteBody } from './channels.js';
import { FreeFormObject, OrNull } from './common.js';

const Text = Type.String({ maxLength: 2000 });

// A urn is a path segment of every mediator route, so it cannot hold a slash, a query or whitespace.
const Urn = Type.String({ minLength: 1, maxLength: 300, pattern: '^[^\\s/?#]+$', description: 'the mediator urn, e.g. urn:mediator:lab-adapter' });

const defFields = {
  param: Type.String({ minLength: 1, maxLength: 100 }),
  displayName: Type.Optional(Type.String({ maxLength: 200 })),
  description: Type.Optional(Text),
  type: Type.Enum([...CONFIG_TYPES]),
  values: Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 500 })),
  array: Type.Optional(Type.Boolean()),
};

// A template holds definitions of the same schema, minus `template`: structs do not nest (SPEC.md).
const TemplateDef = Type.Object(defFields, { additionalProperties: false });

export const ConfigDef = Type.Object({ ...defFields, template: Type.Optional(Type.Array(TemplateDef, { maxItems: 200 })) }, { additionalProperties: false });

// A bigstring value may hold a certificate or a template, so strings may be longer than the free-form default.
const ConfigValues = FreeFormObject({ description: 'parameter name to value, checked against configDefs', limits: { maxStringLength: 1_000_000 } });

/**
 * Fields of a mediator as answered that a registration sent back as fetched carries: accepted (any of them may also
 * be null) and ignored, since the service keeps them itself.
 */
const readOnly = {
  _id: Type.String({ maxLength: 100 }),
  installedChannels: Type.Array(Type.Object({ name: Type.String({ maxLength: 200 }), channelId: Type.String({ maxLength: 100 }) }, { additionalProperties: false }), { maxItems: 100 }),
  online: Type.Boolean(),
  _uptime: Type.Number({ minimum: 0 }),
  _lastHeartbeat: Type.String({ maxLength: 100 }),
  _configModifiedTS: Type.String({ maxLength: 100 }),
  updatedBy: Type.Object({ id: Type.String({ maxLength: 100 }), name: Type.String({ maxLength: 300 }) }, { additionalProperties: false }),
  createdAt: Type.String({ maxLength: 100 }),
  updatedAt: Type.String({ maxLength: 100 }),
};

/** The names of the read-only fields a registration may carry; the route drops them. */
export const MEDIATOR_READ_ONLY_FIELDS: readonly string[] = Object.keys(readOnly);

/** A registration: OpenHIM's document, or a mediator as `GET /mediators/:urn` answers it (null means "not set"). */
export const MediatorRegistrationBody = Type.Object(
  {
    urn: Urn,
    version: Type.String({ minLength: 1, maxLength: 100, description: 'a semantic version such as 1.2.3' }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(OrNull(Text)),
    endpoints: Type.Optional(OrNull(Type.Array(RouteBody, { maxItems: 50 }))),
    defaultChannelConfig: Type.Optional(OrNull(Type.Array(ChannelCreateBody, { maxItems: 100 }))),
    configDefs: Type.Optional(OrNull(Type.Array(ConfigDef, { maxItems: 500 }))),
    config: Type.Optional(OrNull(ConfigValues)),
    _id: Type.Optional(OrNull(readOnly._id)),
    installedChannels: Type.Optional(OrNull(readOnly.installedChannels)),
    online: Type.Optional(OrNull(readOnly.online)),
    _uptime: Type.Optional(OrNull(readOnly._uptime)),
    _lastHeartbeat: Type.Optional(OrNull(readOnly._lastHeartbeat)),
    _configModifiedTS: Type.Optional(OrNull(readOnly._configModifiedTS)),
    updatedBy: Type.Optional(OrNull(readOnly.updatedBy)),
    createdAt: Type.Optional(OrNull(readOnly.createdAt)),
    updatedAt: Type.Optional(OrNull(readOnly.updatedAt)),
  },
  { additionalProperties: false },
);
export type MediatorRegistrationBody = Static<typeof MediatorRegistrationBody>;

export const MediatorParams = Type.Object({ urn: Urn }, { additionalProperties: false });

export const HeartbeatBody = Type.Object(
  {
    uptime: Type.Number({ minimum: 0, description: 'seconds the mediator has been running' }),
    config: Type.Optional(Type.Boolean({ description: 'true asks for the configuration in the answer' })),
  },
  { additionalProperties: false },
);

export const ConfigBody = ConfigValues;

export const InstallChannelsBody = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  maxItems: 100,
  uniqueItems: true,
  description: 'names of default channels to install; empty installs them all',
});

// A route's optional texts may be registered as null (OpenHIM's "not set"), so the answer may show null too.
const PublicRoute = Type.Object({ ...RouteBody.properties, password: Type.Optional(OrNull(Type.String({ description: 'always the mask when a password is set' }))) });

/** A mediator as answered: passwords (route and config) masked, online status derived from heartbeats. */
export const PublicMediatorSchema = Type.Object({
  _id: Type.String(),
  urn: Type.String(),
  version: Type.String(),
  name: Type.String(),
  description: Type.Optional(Type.String()),
  endpoints: Type.Array(PublicRoute),
  defaultChannelConfig: Type.Array(Type.Object({ ...ChannelCreateBody.properties, routes: Type.Array(PublicRoute) })),
  configDefs: Type.Array(Type.Object({ ...defFields, template: Type.Optional(Type.Array(Type.Object(defFields))) })),
  config: Type.Record(Type.String(), Type.Unknown()),
  installedChannels: Type.Array(Type.Object({ name: Type.String(), channelId: Type.String() })),
  online: Type.Boolean({ description: 'a heartbeat arrived within mediators.offlineAfterSeconds' }),
  _uptime: Type.Optional(Type.Number()),
  _lastHeartbeat: Type.Optional(Type.String()),
  _configModifiedTS: Type.Optional(Type.String()),
  updatedBy: Type.Optional(Type.Object({ id: Type.String(), name: Type.String() })),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type PublicMediator = Static<typeof PublicMediatorSchema>;
